#include "exec/op_groups.hpp"

#include <stdexcept>

namespace scaleout::exec {

using namespace scaleout::core;

Fabric::Handle GroupPlanner::post(const PointOp& op) {
  ops_.push_back(op);
  return static_cast<Fabric::Handle>(ops_.size() - 1);
}

std::vector<PointOp> GroupPlanner::take_group() {
  std::vector<PointOp> group(ops_.begin() + static_cast<std::ptrdiff_t>(issued_), ops_.end());
  issued_ = ops_.size();
  return group;
}

void GroupPlanner::clear() {
  if (has_unissued()) throw std::logic_error("a bucket ended with transfers never waited for");
  ops_.clear();
  issued_ = 0;
}

std::vector<std::int64_t> scratch_offsets(const std::vector<PointOp>& group, std::int64_t align,
                                          std::int64_t& total) {
  std::vector<std::int64_t> offsets;
  total = 0;
  for (const PointOp& op : group) {
    bool needs = !op.send && op.combine == Combine::kAdd && op.span.count > 0;
    offsets.push_back(needs ? total : -1);
    if (needs) total += (op.span.count + align - 1) / align * align;
  }
  return offsets;
}

std::string describe(const PointOp& op) {
  std::string range =
      "[" + std::to_string(op.span.begin) + ", " + std::to_string(op.span.end()) + ")";
  if (op.send) return "ncclSend(peer " + std::to_string(op.peer) + ", " + range + ")";
  return "ncclRecv(peer " + std::to_string(op.peer) + ", " + range +
         (op.combine == Combine::kAdd ? " add)" : " replace)");
}

}  // namespace scaleout::exec

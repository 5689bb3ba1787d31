#include "core/programs/strategies/pipelined_tree.hpp"

#include <algorithm>

namespace scaleout::core {

namespace {

// Chunk c of `span`: whole chunks, the last one what is left (a bigger span never makes the
// pieces, and the pipeline's steps, smaller).
Span piece(Span span, std::int64_t chunk, std::int64_t c) {
  std::int64_t begin = c * chunk;
  return Span{span.begin + begin, std::min(chunk, span.count - begin)};
}

// Runs steps 0..last: step(s, handles) posts the step's transfers; then they are waited for.
template <typename StepFn>
void run_steps(Fabric& fabric, std::int64_t last, const StepFn& step) {
  std::vector<Fabric::Handle> handles;
  for (std::int64_t s = 0; s <= last; ++s) {
    handles.clear();
    step(s, handles);
    if (!handles.empty()) fabric.wait_all(handles);
  }
}

}  // namespace

std::int64_t chunks_of(Span span, std::int64_t chunk) { return (span.count + chunk - 1) / chunk; }

void pipelined_reduce(Fabric& fabric, const std::vector<TreeRole>& roles, std::int64_t chunk) {
  chunk = std::max<std::int64_t>(1, chunk);
  std::int64_t last = -1;  // this rank's last step: its own send, or its last receive at a root
  for (const auto& role : roles)
    last = std::max(last, chunks_of(role.span, chunk) - 1 + role.height);
  run_steps(fabric, last, [&](std::int64_t s, std::vector<Fabric::Handle>& handles) {
    for (const auto& role : roles) {
      std::int64_t k = chunks_of(role.span, chunk);
      for (std::size_t i = 0; i < role.children.size(); ++i) {
        std::int64_t c = s - role.child_heights[i];
        if (c >= 0 && c < k)
          handles.push_back(
              fabric.post_recv(role.children[i], piece(role.span, chunk, c), Combine::kAdd));
      }
      std::int64_t c = s - role.height;
      if (role.parent >= 0 && c >= 0 && c < k)
        handles.push_back(fabric.post_send(role.parent, piece(role.span, chunk, c)));
    }
  });
}

void pipelined_broadcast(Fabric& fabric, const std::vector<TreeRole>& roles, std::int64_t chunk) {
  chunk = std::max<std::int64_t>(1, chunk);
  std::int64_t last = -1;
  for (const auto& role : roles)
    if (!role.children.empty())
      last = std::max(last, chunks_of(role.span, chunk) - 1 + role.depth);
    else if (role.parent >= 0)
      last = std::max(last, chunks_of(role.span, chunk) - 2 + role.depth);
  run_steps(fabric, last, [&](std::int64_t s, std::vector<Fabric::Handle>& handles) {
    for (const auto& role : roles) {
      std::int64_t k = chunks_of(role.span, chunk);
      std::int64_t in = s - role.depth + 1, out = s - role.depth;
      if (role.parent >= 0 && in >= 0 && in < k)
        handles.push_back(
            fabric.post_recv(role.parent, piece(role.span, chunk, in), Combine::kReplace));
      if (out >= 0 && out < k)
        for (int child : role.children)
          handles.push_back(fabric.post_send(child, piece(role.span, chunk, out)));
    }
  });
}

}  // namespace scaleout::core

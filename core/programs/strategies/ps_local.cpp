// Synchronous parameter server with local aggregation (TensorFlow's replicated variables on a PS,
// BytePS): the workers of a node reduce-scatter the bucket inside the node, each pushes the part
// it owns to the servers (a node's NIC then carries one gradient, not one per device), pulls the
// servers' sums of that part, and the node all-gathers them.
#include <algorithm>

#include "core/programs/strategies/ps_node_pieces.hpp"
#include "core/programs/strategies/ring_phases.hpp"
#include "core/programs/strategies/strategies.hpp"

namespace scaleout::core {

namespace {

Span intersect(Span a, Span b) {
  std::int64_t begin = std::max(a.begin, b.begin), end = std::min(a.end(), b.end());
  return Span{begin, std::max<std::int64_t>(0, end - begin)};
}

class NodeAggregatedPs : public StrategyProgram {
 public:
  explicit NodeAggregatedPs(const RankLayout& layout)
      : workers_(layout.workers), servers_(layout.servers), nodes_(group_by_node(layout)) {}

  void run(Fabric& fabric, Span bucket) override { run(fabric, bucket, PartFn()); }

  void run(Fabric& fabric, Span bucket, const PartFn& part) override {
    int r = fabric.rank();
    double t = fabric.now();
    // Reports the part that ends now, and starts the next.
    auto done = [&](const char* name) {
      double now = fabric.now();
      if (part) part(name, t, now);
      t = now;
    };
    if (r >= workers_) {
      serve(fabric, bucket, shard(bucket, r - workers_), done);
      return;
    }
    RingGroup inside = ring_through(nodes_.members[nodes_.node_of[r]], nodes_.local_of[r]);
    ring_reduce_scatter(fabric, inside, bucket);
    done("node reduce-scatter");
    Span mine = part_of(bucket, r);
    std::vector<Fabric::Handle> handles;
    for (int j = 0; j < servers_; ++j)
      if (Span p = intersect(mine, shard(bucket, j)); p.count > 0)
        handles.push_back(fabric.post_send(workers_ + j, p));
    fabric.wait_all(handles);
    done("push");
    handles.clear();
    for (int j = 0; j < servers_; ++j)
      if (Span p = intersect(mine, shard(bucket, j)); p.count > 0)
        handles.push_back(fabric.post_recv(workers_ + j, p, Combine::kReplace));
    fabric.wait_all(handles);
    done("pull");
    ring_allgather(fabric, inside, bucket);
    done("node all-gather");
  }

  std::string describe() const override {
    return "synchronous PS aggregated per node, " + std::to_string(nodes_.nodes()) + " node(s), " +
           std::to_string(servers_) + " shard(s)";
  }

 private:
  // One contribution per node for every element: the first node's replace the server's copy,
  // the others add to it (the first node's parts cover the whole bucket).
  template <typename Done>
  void serve(Fabric& fabric, Span bucket, Span mine, Done& done) {
    std::vector<Fabric::Handle> handles;
    std::vector<std::pair<int, Span>> parts;
    for (int w = 0; w < workers_; ++w)
      if (Span p = intersect(part_of(bucket, w), mine); p.count > 0) parts.push_back({w, p});
    for (const auto& [w, p] : parts)
      handles.push_back(fabric.post_recv(
          w, p, nodes_.node_of[w] == nodes_.node_of[0] ? Combine::kReplace : Combine::kAdd));
    fabric.wait_all(handles);
    done("pushes in, summed");
    handles.clear();
    for (const auto& [w, p] : parts) handles.push_back(fabric.post_send(w, p));
    fabric.wait_all(handles);
    done("sums out");
  }

  Span part_of(Span bucket, int w) const { return node_part(nodes_, bucket, w); }
  Span shard(Span bucket, int j) const { return split_part(bucket, servers_, j); }

  int workers_, servers_;
  NodeGroups nodes_;
};

}  // namespace

std::unique_ptr<StrategyProgram> make_ps_local(const RankLayout& layout) {
  return std::make_unique<NodeAggregatedPs>(layout);
}

}  // namespace scaleout::core

// Synchronous parameter server with local aggregation (TensorFlow's replicated variables on a PS,
// BytePS): the workers of a node reduce-scatter the bucket inside the node, each pushes the part
// it owns to the servers (a node's NIC then carries one gradient, not one per device), pulls the
// servers' sums of that part, and the node all-gathers them.
#include <algorithm>
#include <map>

#include "core/strategies/ring_phases.hpp"
#include "core/strategies/strategies.hpp"

namespace scaleout::core {

namespace {

Span intersect(Span a, Span b) {
  std::int64_t begin = std::max(a.begin, b.begin), end = std::min(a.end(), b.end());
  return Span{begin, std::max<std::int64_t>(0, end - begin)};
}

class NodeAggregatedPs : public StrategyProgram {
 public:
  NodeAggregatedPs(int workers, int servers, std::vector<std::vector<int>> nodes)
      : workers_(workers), servers_(servers), nodes_(std::move(nodes)) {
    node_of_.resize(workers);
    local_of_.resize(workers);
    for (std::size_t n = 0; n < nodes_.size(); ++n)
      for (std::size_t i = 0; i < nodes_[n].size(); ++i) {
        node_of_[nodes_[n][i]] = static_cast<int>(n);
        local_of_[nodes_[n][i]] = static_cast<int>(i);
      }
  }

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
    RingGroup inside = ring_through(nodes_[node_of_[r]], local_of_[r]);
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
    return "synchronous PS aggregated per node, " + std::to_string(nodes_.size()) + " node(s), " +
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
      handles.push_back(
          fabric.post_recv(w, p, node_of_[w] == node_of_[0] ? Combine::kReplace : Combine::kAdd));
    fabric.wait_all(handles);
    done("pushes in, summed");
    handles.clear();
    for (const auto& [w, p] : parts) handles.push_back(fabric.post_send(w, p));
    fabric.wait_all(handles);
    done("sums out");
  }

  // The part of `bucket` worker w holds summed over its node after the reduce-scatter.
  Span part_of(Span bucket, int w) const {
    RingGroup g = ring_through(nodes_[node_of_[w]], local_of_[w]);
    return split_part(bucket, g.size(), owned_segment(g));
  }
  Span shard(Span bucket, int j) const { return split_part(bucket, servers_, j); }

  int workers_, servers_;
  std::vector<std::vector<int>> nodes_;  // workers of each node, in rank order
  std::vector<int> node_of_, local_of_;
};

}  // namespace

std::unique_ptr<StrategyProgram> make_ps_local(const RankLayout& layout) {
  std::map<int, std::vector<int>> by_node;
  for (int r = 0; r < layout.workers; ++r) by_node[layout.worker_node[r]].push_back(r);
  std::vector<std::vector<int>> nodes;
  for (auto& [node, members] : by_node) nodes.push_back(std::move(members));
  return std::make_unique<NodeAggregatedPs>(layout.workers, layout.servers, std::move(nodes));
}

}  // namespace scaleout::core

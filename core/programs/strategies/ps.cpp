// Synchronous parameter server: the gradient is split into one shard per server; every worker
// pushes each shard to its server, each server sums the shards of all workers, then workers pull
// the sums.
#include "core/programs/strategies/strategies.hpp"

namespace scaleout::core {

namespace {

class SyncPs : public StrategyProgram {
 public:
  SyncPs(int workers, int servers) : workers_(workers), servers_(servers) {}

  void run(Fabric& fabric, Span bucket) override {
    int r = fabric.rank();
    std::vector<Fabric::Handle> handles;
    if (r < workers_) {
      for (int j = 0; j < servers_; ++j)
        handles.push_back(fabric.post_send(workers_ + j, shard(bucket, j)));
      fabric.wait_all(handles);
      handles.clear();
      for (int j = 0; j < servers_; ++j)
        handles.push_back(fabric.post_recv(workers_ + j, shard(bucket, j), Combine::kReplace));
      fabric.wait_all(handles);
      return;
    }
    Span mine = shard(bucket, r - workers_);
    // The first push replaces the server's copy, the others add to it: the server ends with the
    // sum.
    for (int w = 0; w < workers_; ++w)
      handles.push_back(fabric.post_recv(w, mine, w == 0 ? Combine::kReplace : Combine::kAdd));
    fabric.wait_all(handles);
    handles.clear();
    for (int w = 0; w < workers_; ++w) handles.push_back(fabric.post_send(w, mine));
    fabric.wait_all(handles);
  }

  std::string describe() const override {
    return "synchronous PS, " + std::to_string(servers_) + " shard(s)";
  }

 private:
  Span shard(Span bucket, int j) const { return split_part(bucket, servers_, j); }
  int workers_, servers_;
};

}  // namespace

std::unique_ptr<StrategyProgram> make_ps(const RankLayout& layout) {
  return std::make_unique<SyncPs>(layout.workers, layout.servers);
}

}  // namespace scaleout::core

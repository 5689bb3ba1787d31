// Pipelined binary-tree all-reduce: chunks flow up a binary tree (rank r's parent is (r-1)/2), each
// node adding its children's chunks before forwarding, then flow back down from the root.
// Chunks are whole `chunk`s, the last one what is left: a bigger bucket then never makes the
// pipeline's pieces smaller (and the step shorter), as even pieces did.
#include <algorithm>

#include "core/strategies/strategies.hpp"

namespace scaleout::core {

namespace {

class Tree : public StrategyProgram {
 public:
  Tree(int workers, std::int64_t chunk_elements)
      : n_(workers), chunk_(std::max<std::int64_t>(1, chunk_elements)) {}

  void run(Fabric& fabric, Span bucket) override {
    int r = fabric.rank();
    std::vector<int> children;
    for (int c : {2 * r + 1, 2 * r + 2})
      if (c < n_) children.push_back(c);
    int parent = r == 0 ? -1 : (r - 1) / 2;
    int chunks = static_cast<int>(std::max<std::int64_t>(1, (bucket.count + chunk_ - 1) / chunk_));

    std::vector<Fabric::Handle> sends;
    auto piece_of = [&](int c) {
      std::int64_t begin = c * chunk_;
      return Span{bucket.begin + begin, std::min(chunk_, bucket.count - begin)};
    };
    for (int c = 0; c < chunks; ++c) {  // reduce towards the root
      Span piece = piece_of(c);
      std::vector<Fabric::Handle> recvs;
      for (int child : children) recvs.push_back(fabric.post_recv(child, piece, Combine::kAdd));
      fabric.wait_all(recvs);
      if (parent >= 0) sends.push_back(fabric.post_send(parent, piece));
    }
    fabric.wait_all(sends);
    sends.clear();
    for (int c = 0; c < chunks; ++c) {  // broadcast from the root
      Span piece = piece_of(c);
      if (parent >= 0) fabric.wait_all({fabric.post_recv(parent, piece, Combine::kReplace)});
      for (int child : children) sends.push_back(fabric.post_send(child, piece));
    }
    fabric.wait_all(sends);
  }

  std::string describe() const override { return "pipelined binary tree"; }

 private:
  int n_;
  std::int64_t chunk_;
};

}  // namespace

std::unique_ptr<StrategyProgram> make_tree(const RankLayout& layout, std::int64_t chunk_elements) {
  return std::make_unique<Tree>(layout.workers, chunk_elements);
}

}  // namespace scaleout::core

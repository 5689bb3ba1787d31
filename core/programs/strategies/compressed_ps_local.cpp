// The synchronous parameter server aggregated per node, with gradient compression: BytePS's
// layout. The workers of a node reduce-scatter the bucket inside the node (dense, over its
// NVLink or PCIe), each encodes the pieces of its part
// (core/programs/strategies/ps_node_pieces.hpp) and pushes each server the encoded pieces of its
// shard in one message; a server combines one contribution per node for every piece
// (core/codecs/ps_codec.hpp, with the nodes as its workers), the workers pull the dense sums
// (sparse kinds) or the encoded sums (decoded after the pull), and the node all-gathers. A server's
// combination runs at its host's rate with `server_hosts: cpu`.
#include <algorithm>
#include <functional>
#include <map>
#include <stdexcept>
#include <utility>

#include "core/codecs/compression.hpp"
#include "core/codecs/ps_codec.hpp"
#include "core/model/step_model.hpp"
#include "core/programs/strategies/ps_node_pieces.hpp"
#include "core/programs/strategies/ring_phases.hpp"
#include "core/programs/strategies/strategies.hpp"

namespace scaleout::core {

namespace {

// A run of consecutive pieces one worker sends one server (or receives from it), and where
// their encodings lie in the sender's or receiver's scratch.
struct Message {
  int peer = 0;
  int first = 0, last = 0;  // the run's pieces, as indices into the bucket's pieces
  Span area;                // the encodings, one after another
};

class CompressedNodePs : public StrategyProgram {
 public:
  CompressedNodePs(const Plan& plan, const RankLayout& layout)
      : c_(plan.training.compression),
        device_(plan.cluster.device),
        server_rates_(ps_server_codec_device(plan)),
        workers_(layout.workers),
        servers_(layout.servers),
        groups_(group_by_node(layout)),
        scratch_begin_(gradient_elements(plan)) {}

  void run(Fabric& fabric, Span bucket) override { run(fabric, bucket, PartFn()); }

  void run(Fabric& fabric, Span bucket, const PartFn& part) override {
    if (fabric.device().device_codecs())  // its codecs run on host memory
      throw std::logic_error("a compressed parameter server runs on fabrics with host memory");
    double t = fabric.now();
    auto done = [&](const char* name) {  // reports the part that ends now
      double now = fabric.now();
      if (part) part(name, t, now);
      t = now;
    };
    if (fabric.rank() < workers_)
      work(fabric, bucket, done);
    else
      serve(fabric, bucket, fabric.rank() - workers_, done);
  }

  std::string describe() const override {
    return "synchronous PS aggregated per node, " + std::to_string(groups_.nodes()) + " node(s), " +
           std::to_string(servers_) + " shard(s), with " + compression_name(c_.kind) +
           " compression of each node's contribution";
  }

 private:
  using Done = std::function<void(const char*)>;

  PsShardCodec codec_of(const NodePiece& p) const {
    return PsShardCodec(c_, groups_.nodes(), p.span.count);
  }
  static std::uint64_t id_of(const NodePiece& p) {
    return static_cast<std::uint64_t>(p.span.begin);
  }
  bool dense_pull() const { return ps_dense_pull(c_); }
  // The bucket's elements a message's pieces cover (where dense pulls land).
  static Span covered(const std::vector<NodePiece>& pieces, const Message& m) {
    return Span{pieces[m.first].span.begin, pieces[m.last].span.end() - pieces[m.first].span.begin};
  }

  void work(Fabric& fabric, Span bucket, const Done& done);
  void serve(Fabric& fabric, Span bucket, int server, const Done& done);

  Compression c_;
  DeviceSpec device_, server_rates_;
  int workers_, servers_;
  NodeGroups groups_;
  std::int64_t scratch_begin_;
  std::map<std::pair<int, std::uint64_t>, CodecState> states_;  // (rank, piece) -> state
};

void CompressedNodePs::work(Fabric& fabric, Span bucket, const Done& done) {
  int r = fabric.rank(), node = groups_.node_of[r];
  RingGroup inside = ring_through(groups_.members[node], groups_.local_of[r]);
  ring_reduce_scatter(fabric, inside, bucket);
  done("node reduce-scatter");
  std::vector<NodePiece> pieces = node_pieces(groups_, bucket, servers_);
  std::vector<Span> area(pieces.size());  // each of my pieces' encoding in the scratch
  std::vector<Message> sends;             // one per server, its pieces in element order
  std::int64_t at = scratch_begin_;
  double encode = 0, decode = 0;
  for (int i = 0; i < static_cast<int>(pieces.size()); ++i) {
    if (pieces[i].owners[node] != r) continue;
    area[i] = Span{at, codec_of(pieces[i]).push_words()};
    at += area[i].count;
    int server = workers_ + pieces[i].server;
    if (sends.empty() || sends.back().peer != server) sends.push_back({server, i, i, area[i]});
    sends.back().last = i;
    sends.back().area.count = at - sends.back().area.begin;
    PsCodecSeconds s = ps_codec_seconds(c_, device_, pieces[i].span.count, groups_.nodes());
    encode += s.encode;
    decode += s.decode;
  }
  fabric.device().local_work(encode, [&](float* words) {
    for (const Message& m : sends)
      for (int i = m.first; i <= m.last; ++i)
        codec_of(pieces[i]).encode(r, id_of(pieces[i]), words + pieces[i].span.begin,
                                   words + area[i].begin, states_[{r, id_of(pieces[i])}]);
  });
  std::vector<Fabric::Handle> handles;
  for (const Message& m : sends) handles.push_back(fabric.post_send(m.peer, m.area));
  fabric.wait_all(handles);
  done("push");
  handles.clear();
  bool dense = dense_pull();
  // The pull lands over the push, sent already (pushes and pulls are the same size here).
  for (const Message& m : sends)
    handles.push_back(
        fabric.post_recv(m.peer, dense ? covered(pieces, m) : m.area, Combine::kReplace));
  fabric.wait_all(handles);
  if (!dense)
    fabric.device().local_work(decode, [&](float* words) {
      for (const Message& m : sends)
        for (int i = m.first; i <= m.last; ++i)
          codec_of(pieces[i]).decode(words + area[i].begin, words + pieces[i].span.begin,
                                     states_[{r, id_of(pieces[i])}]);
    });
  done("pull");
  ring_allgather(fabric, inside, bucket);
  done("node all-gather");
}

void CompressedNodePs::serve(Fabric& fabric, Span bucket, int server, const Done& done) {
  std::vector<NodePiece> pieces = node_pieces(groups_, bucket, servers_);
  int nodes = groups_.nodes();
  // Every worker's run of this shard's pieces, at its own area of the scratch; `push_at[i][n]`
  // is where node n's encoding of piece i lies.
  std::vector<Message> pushes;
  std::map<int, std::vector<std::int64_t>> push_at;
  std::int64_t at = scratch_begin_;
  for (int w = 0; w < workers_; ++w) {
    int node = groups_.node_of[w];
    for (int i = 0; i < static_cast<int>(pieces.size()); ++i) {
      if (pieces[i].server != server || pieces[i].owners[node] != w) continue;
      if (pushes.empty() || pushes.back().peer != w) pushes.push_back({w, i, i, Span{at, 0}});
      pushes.back().last = i;
      push_at[i].resize(nodes);
      push_at[i][node] = at;
      at += codec_of(pieces[i]).push_words();
      pushes.back().area.count = at - pushes.back().area.begin;
    }
  }
  if (pushes.empty()) return;    // an empty shard takes no part in the bucket
  std::map<int, Span> sum_area;  // quantized: each piece's encoded sum, pulled
  double seconds = 0;
  for (auto& [i, where] : push_at) {
    PsShardCodec codec = codec_of(pieces[i]);
    sum_area[i] = Span{at, codec.pull_words()};
    at += codec.pull_words();
    seconds += ps_codec_seconds(c_, server_rates_, pieces[i].span.count, nodes).reduce;
  }
  std::vector<Fabric::Handle> handles;
  for (const Message& m : pushes)
    handles.push_back(fabric.post_recv(m.peer, m.area, Combine::kReplace));
  fabric.wait_all(handles);
  fabric.device().local_work(seconds, [&](float* words) {
    for (auto& [i, where] : push_at) {
      PsShardCodec codec = codec_of(pieces[i]);
      std::vector<float> combined(codec.server_words());
      for (int n = 0; n < nodes; ++n)
        std::copy_n(words + where[n], codec.push_words(),
                    combined.begin() + n * codec.push_words());
      codec.reduce(combined.data(), words + pieces[i].span.begin,
                   states_[{fabric.rank(), id_of(pieces[i])}]);
      std::copy_n(combined.begin() + nodes * codec.push_words(), codec.pull_words(),
                  words + sum_area[i].begin);
    }
  });
  done("pushes in, summed");
  handles.clear();
  for (const Message& m : pushes) {
    Span out = dense_pull() ? covered(pieces, m)
                            : Span{sum_area[m.first].begin,
                                   sum_area[m.last].end() - sum_area[m.first].begin};
    handles.push_back(fabric.post_send(m.peer, out));
  }
  fabric.wait_all(handles);
  done("sums out");
}

}  // namespace

std::unique_ptr<StrategyProgram> make_compressed_ps_local(const Plan& plan,
                                                          const RankLayout& layout) {
  return std::make_unique<CompressedNodePs>(plan, layout);
}

}  // namespace scaleout::core

// The synchronous parameter server with gradient compression (core/codecs/ps_codec.hpp): each
// worker encodes every shard of the bucket and pushes it to the shard's server; the server combines
// the pushes (sparse: adds the blocks into its dense shard; quantized: decodes, sums, re-encodes
// with its own error feedback), and the workers pull the dense sum or the encoded sum (decoded
// after the pull). The codec work runs as local work: real on executed fabrics (host memory),
// priced at the device's compressor rates on simulated ones (the servers' at the host's
// `codec_rate` with `server_hosts: cpu`).
#include <algorithm>
#include <map>
#include <stdexcept>
#include <utility>

#include "core/codecs/compression.hpp"
#include "core/codecs/ps_codec.hpp"
#include "core/model/step_model.hpp"
#include "core/programs/strategies/strategies.hpp"
#include "core/programs/strategy.hpp"

namespace scaleout::core {

namespace {

class CompressedPs : public StrategyProgram {
 public:
  CompressedPs(const Plan& plan, const RankLayout& layout)
      : c_(plan.training.compression),
        device_(plan.cluster.device),
        server_rates_(ps_server_codec_device(plan)),
        workers_(layout.workers),
        servers_(layout.servers),
        scratch_begin_(gradient_elements(plan)) {}

  void run(Fabric& fabric, Span bucket) override {
    if (fabric.device()
            .device_codecs())  // its codecs run on host memory (the GPU codecs serve the ring)
      throw std::logic_error("a compressed parameter server runs on fabrics with host memory");
    if (fabric.rank() < workers_)
      work(fabric, bucket);
    else
      serve(fabric, bucket, fabric.rank() - workers_);
  }

  std::string describe() const override {
    bool dense = ps_dense_pull(c_);
    return "synchronous PS, " + std::to_string(servers_) + " shard(s), with " +
           compression_name(c_.kind) +
           (dense ? " compression: sparse pushes, dense pulls"
                  : " compression: encoded pushes, the servers' results pulled encoded");
  }

 private:
  Span shard(Span bucket, int j) const { return split_part(bucket, servers_, j); }
  static std::uint64_t id_of(Span s) { return static_cast<std::uint64_t>(s.begin); }

  void work(Fabric& fabric, Span bucket) {
    int rank = fabric.rank();
    std::vector<PsShardCodec> codecs;
    std::vector<Span> areas;  // each shard's push (and quantized pull) in the scratch
    std::int64_t at = scratch_begin_;
    double encode = 0, decode = 0;
    for (int j = 0; j < servers_; ++j) {
      codecs.emplace_back(c_, workers_, shard(bucket, j).count);
      // The pull lands over the push, sent already (an even vote's pull is the larger).
      areas.push_back({at, std::max(codecs[j].push_words(), codecs[j].pull_words())});
      at += areas[j].count;
      PsCodecSeconds cost = ps_codec_seconds(c_, device_, shard(bucket, j).count, workers_);
      encode += cost.encode;
      decode += cost.decode;
    }
    fabric.device().local_work(encode, [&](float* words) {
      for (int j = 0; j < servers_; ++j) {
        Span s = shard(bucket, j);
        codecs[j].encode(rank, id_of(s), words + s.begin, words + areas[j].begin,
                         states_[{rank, id_of(s)}]);
      }
    });
    std::vector<Fabric::Handle> handles;
    for (int j = 0; j < servers_; ++j)  // a server of an empty shard (a bucket smaller than the
      if (shard(bucket, j).count > 0)   // servers) takes no part in the bucket
        handles.push_back(fabric.post_send(workers_ + j, {areas[j].begin, codecs[j].push_words()}));
    fabric.wait_all(handles);
    handles.clear();
    for (int j = 0; j < servers_; ++j) {
      if (shard(bucket, j).count == 0) continue;
      Span into =
          codecs[j].dense_pull() ? shard(bucket, j) : Span{areas[j].begin, codecs[j].pull_words()};
      handles.push_back(fabric.post_recv(workers_ + j, into, Combine::kReplace));
    }
    fabric.wait_all(handles);
    if (codecs[0].dense_pull()) return;
    fabric.device().local_work(decode, [&](float* words) {
      for (int j = 0; j < servers_; ++j)
        codecs[j].decode(words + areas[j].begin, words + shard(bucket, j).begin,
                         states_[{rank, id_of(shard(bucket, j))}]);
    });
  }

  void serve(Fabric& fabric, Span bucket, int j) {
    Span mine = shard(bucket, j);
    if (mine.count == 0) return;
    PsShardCodec codec(c_, workers_, mine.count);
    std::int64_t push = codec.push_words();
    std::vector<Fabric::Handle> handles;
    for (int w = 0; w < workers_; ++w)
      handles.push_back(
          fabric.post_recv(w, Span{scratch_begin_ + w * push, push}, Combine::kReplace));
    fabric.wait_all(handles);
    fabric.device().local_work(ps_codec_seconds(c_, server_rates_, mine.count, workers_).reduce,
                               [&](float* words) {
                                 codec.reduce(words + scratch_begin_, words + mine.begin,
                                              states_[{fabric.rank(), id_of(mine)}]);
                               });
    Span out =
        codec.dense_pull() ? mine : Span{scratch_begin_ + workers_ * push, codec.pull_words()};
    handles.clear();
    for (int w = 0; w < workers_; ++w) handles.push_back(fabric.post_send(w, out));
    fabric.wait_all(handles);
  }

  Compression c_;
  DeviceSpec device_, server_rates_;  // the workers' compressor rates, the servers'
  int workers_, servers_;
  std::int64_t scratch_begin_;
  std::map<std::pair<int, std::uint64_t>, CodecState> states_;  // (rank, shard) -> state
};

}  // namespace

std::unique_ptr<StrategyProgram> make_compressed_ps(const Plan& plan, const RankLayout& layout) {
  return std::make_unique<CompressedPs>(plan, layout);
}

}  // namespace scaleout::core

#include "core/plan/plan_writer.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <utility>

#include "core/codecs/compression.hpp"
#include "core/files/atomic_file.hpp"
#include "core/parallel/pipeline_schedule.hpp"
#include "core/plan/framework.hpp"
#include "core/plan/node_fabric_loader.hpp"
#include "core/plan/strategy_settings.hpp"

namespace scaleout::core {

namespace {

// The shortest text that reads back as the same double ("2e-06", not "1.9999999999999999e-06"),
// with a unit the loader knows.
std::string exact(double v, const char* unit = "") {
  char buf[64];
  for (int digits = 15; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return std::string(buf) + unit;
}

void link(YAML::Emitter& out, const char* key, const LinkSpec& l) {
  out << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "bandwidth" << YAML::Value << exact(l.bandwidth, "B/s");
  out << YAML::Key << "latency" << YAML::Value << exact(l.latency, "s") << YAML::EndMap;
}

void intra_node(YAML::Emitter& out, const Cluster& c) {
  const IntraNodeFabric& f = c.intra_fabric;
  if (f.kind == IntraNodeKind::kNvlink) return link(out, "intra_node", c.intra_node);
  out << YAML::Key << "intra_node" << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "kind" << YAML::Value << intra_node_kind_name(f.kind);
  out << YAML::Key << "bandwidth" << YAML::Value << exact(c.intra_node.bandwidth, "B/s");
  out << YAML::Key << "latency" << YAML::Value << exact(c.intra_node.latency, "s");
  if (f.kind == IntraNodeKind::kPcieTree) {
    out << YAML::Key << "gpus_per_switch" << YAML::Value << f.gpus_per_switch;
    link(out, "uplink", f.switch_uplink);
    if (f.socket_link) link(out, "socket_link", *f.socket_link);
  }
  out << YAML::EndMap;
}

void network(YAML::Emitter& out, const NetworkSpec& n) {
  static const char* kinds[] = {"switch", "two_tier", "fat_tree", "torus2d", "explicit"};
  out << YAML::Key << "network" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "kind" << YAML::Value << kinds[static_cast<int>(n.kind)];
  if (n.kind == NetworkKind::kTwoTier) {
    out << YAML::Key << "hosts_per_rack" << YAML::Value << n.hosts_per_rack;
    link(out, "uplink", n.uplink);
  }
  if (n.kind == NetworkKind::kFatTree) out << YAML::Key << "k" << YAML::Value << n.fat_tree_k;
  if (n.kind == NetworkKind::kTorus2d)
    out << YAML::Key << "dims" << YAML::Value << YAML::Flow << YAML::BeginSeq << n.dims[0]
        << n.dims[1] << YAML::EndSeq;
  if (n.fabric) link(out, "link", *n.fabric);
  out << YAML::EndMap;
}

void explicit_parts(YAML::Emitter& out, const Cluster& c) {
  out << YAML::Key << "hosts" << YAML::Value << YAML::BeginSeq;
  for (const auto& h : c.hosts)
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << h.name << YAML::Key
        << "devices" << YAML::Value << h.devices << YAML::EndMap;
  out << YAML::EndSeq;
  if (!c.switches.empty())
    out << YAML::Key << "switches" << YAML::Value << YAML::Flow << c.switches;
  out << YAML::Key << "links" << YAML::Value << YAML::BeginSeq;
  for (const auto& l : c.links)
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "a" << YAML::Value << l.a << YAML::Key
        << "b" << YAML::Value << l.b << YAML::Key << "bandwidth" << YAML::Value
        << exact(l.link.bandwidth, "B/s") << YAML::Key << "latency" << YAML::Value
        << exact(l.link.latency, "s") << YAML::EndMap;
  out << YAML::EndSeq;
}

// The device's peak: its peaks by data type when it has them (training.precision then picks
// one again), and `flops` as well when it is not one of them picked by the plan's precision
// (written in the topology, or changed since, as the GUI does).
void peak_figures(YAML::Emitter& out, const DeviceSpec& d) {
  bool picked =
      d.flops_line == 0 && std::any_of(d.peaks.begin(), d.peaks.end(),
                                       [&](const PeakRate& p) { return p.flops == d.flops; });
  if (!picked) out << YAML::Key << "flops" << YAML::Value << exact(d.flops, "FLOPS");
  if (d.peaks.empty()) return;
  out << YAML::Key << "peak" << YAML::Value << YAML::Flow << YAML::BeginMap;
  for (const PeakRate& p : d.peaks)
    out << YAML::Key << p.type << YAML::Value << exact(p.flops, "FLOPS");
  out << YAML::EndMap;
}

// The compute model's figures (a preset's, written out: the plan stands on its own).
void compute_figures(YAML::Emitter& out, const DeviceSpec& d) {
  if (d.memory_bandwidth <= 0) return;
  out << YAML::Key << "memory_bandwidth" << YAML::Value << exact(d.memory_bandwidth, "B/s");
  out << YAML::Key << "multiprocessors" << YAML::Value << d.multiprocessors;
  out << YAML::Key << "matmul_tile" << YAML::Value << YAML::Flow << YAML::BeginSeq << d.tile_rows
      << d.tile_cols << YAML::EndSeq;
  if (d.matmul_ceiling > 0)
    out << YAML::Key << "matmul_ceiling" << YAML::Value << exact(d.matmul_ceiling);
  if (d.attention_ceiling > 0)
    out << YAML::Key << "attention_ceiling" << YAML::Value << exact(d.attention_ceiling);
  if (d.memory_ceiling > 0)
    out << YAML::Key << "memory_ceiling" << YAML::Value << exact(d.memory_ceiling);
  out << YAML::Key << "kernel_gap" << YAML::Value << exact(d.kernel_gap, "s");
}

// The topology's device: its name, peaks, memory, the compute model's figures, the overlap
// slowdown and the compressors' rates where they are not the defaults.
void device_mapping(YAML::Emitter& out, const DeviceSpec& d) {
  out << YAML::Key << "device" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "name"
      << YAML::Value << d.name;
  peak_figures(out, d);
  if (d.memory > 0) out << YAML::Key << "memory" << YAML::Value << exact(d.memory, "B");
  compute_figures(out, d);
  if (d.overlap_slowdown > 0)
    out << YAML::Key << "overlap_slowdown" << YAML::Value << exact(d.overlap_slowdown);
  const DeviceSpec defaults;
  if (d.compress_topk != defaults.compress_topk ||
      d.compress_quantize != defaults.compress_quantize ||
      d.compress_lowrank != defaults.compress_lowrank)
    out << YAML::Key << "compress" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key
        << "topk" << YAML::Value << exact(d.compress_topk) << YAML::Key << "quantize" << YAML::Value
        << exact(d.compress_quantize) << YAML::Key << "lowrank" << YAML::Value
        << exact(d.compress_lowrank) << YAML::EndMap;
  out << YAML::EndMap;
}

// The host's software costs, where any is given or differs from its default.
void host_costs_mapping(YAML::Emitter& out, const HostCosts& h) {
  const HostCosts defaults;
  if (!h.any() && h.compensate_rate == defaults.compensate_rate &&
      h.codec_rate == defaults.codec_rate)
    return;
  out << YAML::Key << "host" << YAML::Value << YAML::Flow << YAML::BeginMap;
  if (h.message_overhead > 0)
    out << YAML::Key << "message_overhead" << YAML::Value << exact(h.message_overhead, "s");
  if (h.copy_rate > 0) out << YAML::Key << "copy_rate" << YAML::Value << exact(h.copy_rate, "B/s");
  if (h.sum_rate > 0) out << YAML::Key << "sum_rate" << YAML::Value << exact(h.sum_rate, "B/s");
  if (h.compensate_rate != defaults.compensate_rate)
    out << YAML::Key << "compensate_rate" << YAML::Value << exact(h.compensate_rate, "/s");
  if (h.codec_rate != defaults.codec_rate)
    out << YAML::Key << "codec_rate" << YAML::Value << exact(h.codec_rate, "/s");
  out << YAML::EndMap;
}

// The wire protocol, where it is not the default TCP window without rendezvous.
void transport_mapping(YAML::Emitter& out, const Transport& t) {
  const Transport defaults;
  if (t.kind == defaults.kind && t.window == defaults.window && !(t.eager_limit >= 0)) return;
  out << YAML::Key << "transport" << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "kind" << YAML::Value << (t.kind == TransportKind::kRdma ? "rdma" : "tcp");
  if (t.kind == TransportKind::kTcp && t.window != defaults.window)
    out << YAML::Key << "window" << YAML::Value << exact(t.window, "B");
  if (t.eager_limit >= 0)
    out << YAML::Key << "eager_limit" << YAML::Value << exact(t.eager_limit, "B");
  out << YAML::EndMap;
}

void cluster(YAML::Emitter& out, const Cluster& c) {
  out << YAML::Key << "cluster" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << c.name;
  if (!c.calibrated_from.empty())
    out << YAML::Key << "calibrated_from" << YAML::Value << c.calibrated_from;
  device_mapping(out, c.device);
  intra_node(out, c);
  network(out, c.network);
  if (c.nics_per_node != 1) out << YAML::Key << "nics_per_node" << YAML::Value << c.nics_per_node;
  if (c.network.kind == NetworkKind::kExplicit) {
    explicit_parts(out, c);
    if (c.nic.bandwidth > 0) link(out, "nic", c.nic);
  } else {
    out << YAML::Key << "devices_per_node" << YAML::Value << c.devices_per_node;
    out << YAML::Key << "nodes" << YAML::Value << (c.nodes ? std::to_string(*c.nodes) : "auto");
    link(out, "nic", c.nic);
  }
  out << YAML::Key << "network_model" << YAML::Value;
  if (c.latency_factor) {
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << c.network_model;
    out << YAML::Key << "latency_factor" << YAML::Value << exact(*c.latency_factor) << YAML::EndMap;
  } else {
    out << c.network_model;
  }
  if (!c.heterogeneity.speed_factors.empty()) {
    out << YAML::Key << "speed_factors" << YAML::Value << YAML::BeginMap;
    for (const auto& [name, f] : c.heterogeneity.speed_factors)
      out << YAML::Key << name << YAML::Value << exact(f);
    out << YAML::EndMap;
  }
  if (!c.heterogeneity.link_bandwidth.empty()) {
    out << YAML::Key << "link_bandwidth" << YAML::Value << YAML::BeginMap;
    for (const auto& [name, bw] : c.heterogeneity.link_bandwidth)
      out << YAML::Key << name << YAML::Value << exact(bw, "B/s");
    out << YAML::EndMap;
  }
  if (c.price_per_device_hour)
    out << YAML::Key << "price_per_device_hour" << YAML::Value << exact(*c.price_per_device_hour);
  if (c.storage.write_bandwidth > 0 || c.storage.read_bandwidth > 0 ||
      c.storage.host_copy_bandwidth > 0) {
    out << YAML::Key << "storage" << YAML::Value << YAML::Flow << YAML::BeginMap;
    auto rate = [&](const char* key, double bps) {
      if (bps > 0) out << YAML::Key << key << YAML::Value << exact(bps, "B/s");
    };
    rate("write_bandwidth", c.storage.write_bandwidth);
    rate("read_bandwidth", c.storage.read_bandwidth);
    rate("host_copy_bandwidth", c.storage.host_copy_bandwidth);
    out << YAML::EndMap;
  }
  host_costs_mapping(out, c.host);
  transport_mapping(out, c.transport);
  out << YAML::EndMap;
}

// `tensors`, runs of equal counts as { parameters: N, repeat: K }.
void tensors(YAML::Emitter& out, const std::vector<std::int64_t>& counts) {
  out << YAML::Key << "tensors" << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (std::size_t i = 0; i < counts.size();) {
    std::size_t j = i;
    while (j < counts.size() && counts[j] == counts[i]) ++j;
    if (j - i == 1) {
      out << counts[i];
    } else {
      out << YAML::BeginMap << YAML::Key << "parameters" << YAML::Value << counts[i] << YAML::Key
          << "repeat" << YAML::Value << (j - i) << YAML::EndMap;
    }
    i = j;
  }
  out << YAML::EndSeq;
}

void moe(YAML::Emitter& out, const MoeShape& m) {
  out << YAML::Key << "moe" << YAML::Value << YAML::Flow << YAML::BeginMap;
  for (auto [key, value] : {std::pair{"experts", m.experts},
                            {"top_k", m.top_k},
                            {"expert_ffn_hidden", m.expert_ffn_hidden},
                            {"every", m.every}})
    out << YAML::Key << key << YAML::Value << value;
  if (m.shared_experts > 0) {
    out << YAML::Key << "shared_experts" << YAML::Value << m.shared_experts;
    out << YAML::Key << "shared_ffn_hidden" << YAML::Value << m.shared_ffn_hidden;
  }
  if (m.first_dense > 0) out << YAML::Key << "first_dense" << YAML::Value << m.first_dense;
  if (m.capacity_factor > 0)
    out << YAML::Key << "capacity_factor" << YAML::Value << exact(m.capacity_factor);
  if (m.imbalance != 1.0) out << YAML::Key << "imbalance" << YAML::Value << exact(m.imbalance);
  if (m.groups > 0) {
    out << YAML::Key << "groups" << YAML::Value << m.groups;
    out << YAML::Key << "group_top_k" << YAML::Value << m.group_top_k;
  }
  out << YAML::EndMap;
}

void latent_attention(YAML::Emitter& out, const LatentAttention& a) {
  out << YAML::Key << "latent_attention" << YAML::Value << YAML::Flow << YAML::BeginMap;
  if (a.q_rank > 0) out << YAML::Key << "q_lora_rank" << YAML::Value << a.q_rank;
  for (auto [key, value] : {std::pair{"kv_lora_rank", a.kv_rank},
                            {"qk_rope_head_dim", a.rope_dim},
                            {"qk_nope_head_dim", a.nope_dim},
                            {"v_head_dim", a.value_dim}})
    out << YAML::Key << key << YAML::Value << value;
  out << YAML::EndMap;
}

void workload(YAML::Emitter& out, const Workload& w) {
  out << YAML::Key << "workload" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << w.name;
  if (w.transformer) {  // parameters and FLOPs follow from it
    const TransformerShape& t = *w.transformer;
    out << YAML::Key << "transformer" << YAML::Value << YAML::Flow << YAML::BeginMap;
    for (auto [key, value] : {std::pair{"layers", t.layers},
                              {"hidden", t.hidden},
                              {"heads", t.heads},
                              {"sequence", t.sequence},
                              {"vocabulary", t.vocabulary},
                              {"ffn_hidden", t.ffn_hidden},
                              {"kv_heads", t.kv_heads}})
      out << YAML::Key << key << YAML::Value << value;
    if (t.head_dim > 0) out << YAML::Key << "head_dim" << YAML::Value << t.head_dim;
    if (t.mlp == MlpKind::kSwiglu) out << YAML::Key << "mlp" << YAML::Value << "swiglu";
    if (t.attention == AttentionKind::kFlash)
      out << YAML::Key << "attention" << YAML::Value << "flash";
    if (t.positions != PositionKind::kLearned)
      out << YAML::Key << "positions" << YAML::Value
          << (t.positions == PositionKind::kRotary ? "rotary" : "alibi");
    if (!t.tied_embeddings) out << YAML::Key << "tied_embeddings" << YAML::Value << false;
    if (!t.causal) out << YAML::Key << "causal" << YAML::Value << false;
    if (t.moe) moe(out, *t.moe);
    if (t.latent) latent_attention(out, *t.latent);
    out << YAML::EndMap;
  } else {
    out << YAML::Key << "parameters" << YAML::Value << exact(w.parameters);
    out << YAML::Key << "flops_per_sample" << YAML::Value << exact(w.flops_per_sample, "FLOP");
  }
  // Written only when given: without it a transformer on a device with its figures takes the
  // device's compute model (core/model/device_compute.hpp).
  if (w.efficiency_line != 0 || w.efficiency != Workload{}.efficiency)
    out << YAML::Key << "efficiency" << YAML::Value << exact(w.efficiency);
  if (!w.efficiency_by_size.empty()) {
    out << YAML::Key << "efficiency_by_size" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const auto& [size, efficiency] : w.efficiency_by_size)
      out << YAML::Flow << YAML::BeginSeq << exact(size, "FLOP") << exact(efficiency)
          << YAML::EndSeq;
    out << YAML::EndSeq;
  }
  if (!w.layers.empty()) {
    out << YAML::Key << "layers" << YAML::Value << YAML::BeginSeq;
    for (const auto& l : w.layers)
      out << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << l.name
          << YAML::Key << "parameters" << YAML::Value << exact(l.parameters) << YAML::Key
          << "backward_share" << YAML::Value << exact(l.backward_share) << YAML::EndMap;
    out << YAML::EndSeq;
  }
  if (!w.tensors.empty()) tensors(out, w.tensors);
  if (!w.measured_throughput.empty()) {
    out << YAML::Key << "measured_throughput" << YAML::Value << YAML::Flow << YAML::BeginMap;
    for (const auto& [name, rate] : w.measured_throughput)
      out << YAML::Key << name << YAML::Value << exact(rate);
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
}

// The parameter server's knobs, as a mapping's entries.
void ps_knobs(YAML::Emitter& out, const Strategy& s) {
  out << YAML::Key << "servers" << YAML::Value << s.ps_servers;
  out << YAML::Key << "placement" << YAML::Value
      << (s.ps_placement == PsPlacement::kColocated ? "colocated" : "dedicated");
  out << YAML::Key << "mode" << YAML::Value << (s.ps_mode == PsMode::kAsync ? "async" : "sync");
  if (s.replicas_to_aggregate > 0)
    out << YAML::Key << "replicas_to_aggregate" << YAML::Value << s.replicas_to_aggregate;
  if (s.softsync > 0) out << YAML::Key << "softsync" << YAML::Value << s.softsync;
  if (s.staleness_bound >= 0)
    out << YAML::Key << "staleness_bound" << YAML::Value << s.staleness_bound;
  if (s.ps_local_aggregation == PsAggregation::kNode)
    out << YAML::Key << "local_aggregation" << YAML::Value << "node";
  if (s.ps_server_hosts == PsServerHosts::kCpu)
    out << YAML::Key << "server_hosts" << YAML::Value << "cpu";
  if (s.delay_compensation.on) {
    out << YAML::Key << "delay_compensation" << YAML::Value << YAML::Flow << YAML::BeginMap;
    out << YAML::Key << "lambda" << YAML::Value << exact(s.delay_compensation.lambda);
    out << YAML::Key << "learning_rate" << YAML::Value << exact(s.delay_compensation.learning_rate);
    out << YAML::EndMap;
  }
}

void grid(YAML::Emitter& out, const std::array<int, 2>& g) {
  out << YAML::Key << "grid" << YAML::Value << YAML::Flow << YAML::BeginSeq << g[0] << g[1]
      << YAML::EndSeq;
}

// Knobs of the plan's own kind beside `kind`; the others in their kind's section, so that a sweep
// over several kinds finds them (core/plan/strategy_settings.hpp).
void strategy(YAML::Emitter& out, const Strategy& s) {
  out << YAML::Key << "strategy" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "kind" << YAML::Value << strategy_name(s.kind);
  bool chunk_here = knob_applies("chunk", s.kind);
  if (chunk_here) out << YAML::Key << "chunk" << YAML::Value << exact(s.chunk);
  if (s.kind == StrategyKind::kTorus2d && s.grid) grid(out, *s.grid);
  if (s.kind == StrategyKind::kPs) ps_knobs(out, s);
  if (!chunk_here) {
    out << YAML::Key << "ring" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "chunk" << YAML::Value << exact(s.chunk) << YAML::EndMap;
  }
  if (s.kind != StrategyKind::kTorus2d && s.grid) {
    out << YAML::Key << "torus2d" << YAML::Value << YAML::BeginMap;
    grid(out, *s.grid);
    out << YAML::EndMap;
  }
  if (s.kind != StrategyKind::kPs) {
    out << YAML::Key << "ps" << YAML::Value << YAML::BeginMap;
    ps_knobs(out, s);
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
}

// training.compression (when not none), with its kind's own settings.
void compression(YAML::Emitter& out, const Compression& c) {
  if (c.kind == CompressionKind::kNone) return;
  out << YAML::Key << "compression" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key
      << "kind" << YAML::Value << compression_name(c.kind);
  if (c.sparse()) out << YAML::Key << "density" << YAML::Value << exact(c.density);
  if (c.shared_draw()) out << YAML::Key << "shared_indices" << YAML::Value << true;
  if (c.kind == CompressionKind::kQuantize) out << YAML::Key << "bits" << YAML::Value << c.bits;
  if (c.quantized()) out << YAML::Key << "chunk" << YAML::Value << exact(c.chunk, "B");
  if (c.gathered()) out << YAML::Key << "exchange" << YAML::Value << "allgather";
  if (c.majority_vote) out << YAML::Key << "majority_vote" << YAML::Value << true;
  if (c.kind == CompressionKind::kPowersgd) out << YAML::Key << "rank" << YAML::Value << c.rank;
  if (c.kind != CompressionKind::kFp16)
    out << YAML::Key << "error_feedback" << YAML::Value << c.error_feedback;
  out << YAML::EndMap;
}

// training.fusion (when not the legacy kind) and training.efficiency (when given).
void fusion_and_efficiency(YAML::Emitter& out, const Training& t) {
  const auto& f = t.fusion;
  if (f.kind == Training::Fusion::Kind::kHorovod)
    out << YAML::Key << "fusion" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key
        << "kind" << YAML::Value << "horovod" << YAML::Key << "cycle_time" << YAML::Value
        << exact(f.cycle_time, "s") << YAML::Key << "threshold" << YAML::Value
        << exact(f.threshold, "B") << YAML::EndMap;
  if (f.kind == Training::Fusion::Kind::kDdp)
    out << YAML::Key << "fusion" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key
        << "kind" << YAML::Value << "ddp" << YAML::Key << "bucket_cap" << YAML::Value
        << exact(f.bucket_cap, "B") << YAML::Key << "first_bucket" << YAML::Value
        << exact(f.first_bucket, "B") << YAML::EndMap;
  if (t.efficiency) out << YAML::Key << "efficiency" << YAML::Value << exact(*t.efficiency);
  compression(out, t.compression);
}

void training(YAML::Emitter& out, const Training& t) {
  out << YAML::Key << "training" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "workers" << YAML::Value << t.workers;
  if (t.global_batch > 0)
    out << YAML::Key << "global_batch" << YAML::Value << t.global_batch;
  else
    out << YAML::Key << "batch_per_worker" << YAML::Value << t.batch_per_worker;
  out << YAML::Key << "steps" << YAML::Value << t.steps;
  out << YAML::Key << "gradient_precision" << YAML::Value << t.gradient_precision;
  if (!t.precision.empty()) out << YAML::Key << "precision" << YAML::Value << t.precision;
  out << YAML::Key << "overlap" << YAML::Value << t.overlap;
  if (t.fusion.kind == Training::Fusion::Kind::kLegacy)
    out << YAML::Key << "fusion_buffer" << YAML::Value << exact(t.fusion_buffer);
  fusion_and_efficiency(out, t);
  out << YAML::EndMap;
}

void stragglers(YAML::Emitter& out, const Stragglers& s) {
  if (s.slow_workers.empty() && s.random == SlowdownKind::kNone) return;
  out << YAML::Key << "stragglers" << YAML::Value << YAML::BeginMap;
  if (!s.slow_workers.empty())
    out << YAML::Key << "slow" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key
        << "workers" << YAML::Value << s.slow_workers << YAML::Key << "factor" << YAML::Value
        << exact(s.slow_factor) << YAML::EndMap;
  if (s.random != SlowdownKind::kNone) {
    static const char* names[] = {"none", "exponential", "lognormal", "bernoulli"};
    out << YAML::Key << "random" << YAML::Value << YAML::Flow << YAML::BeginMap;
    out << YAML::Key << "distribution" << YAML::Value << names[static_cast<int>(s.random)];
    if (s.random == SlowdownKind::kExponential)
      out << YAML::Key << "mean" << YAML::Value << exact(s.mean);
    if (s.random == SlowdownKind::kLognormal)
      out << YAML::Key << "sigma" << YAML::Value << exact(s.sigma);
    if (s.random == SlowdownKind::kBernoulli)
      out << YAML::Key << "probability" << YAML::Value << exact(s.probability) << YAML::Key
          << "factor" << YAML::Value << exact(s.factor);
    out << YAML::Key << "seed" << YAML::Value << s.seed << YAML::EndMap;
  }
  out << YAML::EndMap;
}

void resilience(YAML::Emitter& out, const Resilience& r) {
  if (!r.failures.empty()) {
    out << YAML::Key << "failures" << YAML::Value << YAML::BeginSeq;
    for (const auto& f : r.failures) {
      out << YAML::Flow << YAML::BeginMap << YAML::Key << "node" << YAML::Value << f.node;
      if (f.at_step >= 0) out << YAML::Key << "step" << YAML::Value << f.at_step;
      if (f.at_step < 0) out << YAML::Key << "time" << YAML::Value << exact(f.at_time, "s");
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  if (r.checkpoint_every > 0 || r.checkpoint_every_s > 0) {
    out << YAML::Key << "checkpoint" << YAML::Value << YAML::Flow << YAML::BeginMap;
    out << YAML::Key << "every" << YAML::Value;
    if (r.checkpoint_every > 0)
      out << r.checkpoint_every;
    else
      out << exact(r.checkpoint_every_s, "s");
    if (r.checkpoint_cost_given)
      out << YAML::Key << "cost" << YAML::Value << exact(r.checkpoint_cost, "s");
    if (r.checkpoint_asynchronous) out << YAML::Key << "asynchronous" << YAML::Value << true;
    out << YAML::Key << "restart" << YAML::Value << exact(r.restart_time, "s") << YAML::EndMap;
  }
}

void reliability(YAML::Emitter& out, const std::optional<Reliability>& r) {
  if (!r) return;
  out << YAML::Key << "reliability" << YAML::Value << YAML::Flow << YAML::BeginMap;
  auto mtbf = [&](const char* key, double s) {
    if (s > 0) out << YAML::Key << key << YAML::Value << exact(s, "s");
  };
  mtbf("gpu_mtbf", r->gpu_mtbf);
  mtbf("node_mtbf", r->node_mtbf);
  mtbf("link_mtbf", r->link_mtbf);
  out << YAML::Key << "seed" << YAML::Value << r->seed;
  out << YAML::Key << "samples" << YAML::Value << r->samples;
  if (r->train_steps > 0) out << YAML::Key << "train_steps" << YAML::Value << exact(r->train_steps);
  if (r->train_tokens > 0)
    out << YAML::Key << "train_tokens" << YAML::Value << exact(r->train_tokens);
  if (r->repair > 0) {
    out << YAML::Key << "repair" << YAML::Value << exact(r->repair, "s");
    out << YAML::Key << "hot_spares" << YAML::Value << r->hot_spares;
  }
  if (r->slow_mtbf > 0) {
    out << YAML::Key << "slow_mtbf" << YAML::Value << exact(r->slow_mtbf, "s");
    out << YAML::Key << "slow_speed" << YAML::Value << exact(r->slow_speed);
    out << YAML::Key << "slow_for" << YAML::Value << exact(r->slow_for, "s");
  }
  out << YAML::EndMap;
}

void recompute_modules(YAML::Emitter& out, const RecomputeModules& r) {
  std::vector<std::string> names = recompute_module_names(r);
  if (names == std::vector<std::string>{"core_attn"}) return;  // the default
  out << YAML::Key << "recompute_modules" << YAML::Value << YAML::Flow << names;
}

void parallelism(YAML::Emitter& out, const std::optional<Parallelism>& p) {
  if (!p) return;
  out << YAML::Key << "parallelism" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "tensor" << YAML::Value << p->tensor;
  out << YAML::Key << "pipeline" << YAML::Value << p->pipeline;
  out << YAML::Key << "microbatch" << YAML::Value << p->microbatch;
  out << YAML::Key << "schedule" << YAML::Value << schedule_name(p->schedule);
  out << YAML::Key << "virtual_stages" << YAML::Value << p->virtual_stages;
  out << YAML::Key << "sequence_parallel" << YAML::Value << p->sequence_parallel;
  out << YAML::Key << "recompute" << YAML::Value << recompute_name(p->recompute);
  if (p->recompute == Recompute::kSelective) recompute_modules(out, p->recompute_modules);
  out << YAML::Key << "zero" << YAML::Value << p->zero;
  if (p->expert > 1) out << YAML::Key << "expert" << YAML::Value << p->expert;
  if (p->expert_alltoall != ExpertAllToAll::kPairwise)
    out << YAML::Key << "expert_alltoall" << YAML::Value
        << expert_alltoall_name(p->expert_alltoall);
  if (p->expert_dispatch_fp8)
    out << YAML::Key << "expert_dispatch_precision" << YAML::Value << "fp8";
  if (p->context > 1) {
    out << YAML::Key << "context" << YAML::Value << p->context;
    out << YAML::Key << "context_exchange" << YAML::Value
        << (p->context_exchange == ContextExchange::kRing ? "ring" : "allgather");
  }
  if (p->first_stage_layers > 0)
    out << YAML::Key << "first_stage_layers" << YAML::Value << p->first_stage_layers;
  if (p->last_stage_layers > 0)
    out << YAML::Key << "last_stage_layers" << YAML::Value << p->last_stage_layers;
  if (p->embedding_in_split)
    out << YAML::Key << "account_for_embedding_in_pipeline_split" << YAML::Value << true;
  if (p->loss_in_split)
    out << YAML::Key << "account_for_loss_in_pipeline_split" << YAML::Value << true;
  if (p->overlap_grad_reduce)
    out << YAML::Key << "overlap_grad_reduce" << YAML::Value << p->overlap_grad_reduce;
  if (p->bucket_size > 0) out << YAML::Key << "bucket_size" << YAML::Value << exact(p->bucket_size);
  if (p->overlap_param_gather) out << YAML::Key << "overlap_param_gather" << YAML::Value << true;
  if (p->tp_comm_overlap) out << YAML::Key << "tp_comm_overlap" << YAML::Value << true;
  if (p->framework) out << YAML::Key << "framework" << YAML::Value << framework_name(*p->framework);
  out << YAML::EndMap;
}

}  // namespace

std::string plan_to_yaml(const Plan& plan) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  cluster(out, plan.cluster);
  workload(out, plan.workload);
  strategy(out, plan.strategy);
  training(out, plan.training);
  stragglers(out, plan.stragglers);
  resilience(out, plan.resilience);
  reliability(out, plan.reliability);
  parallelism(out, plan.parallelism);
  out << YAML::EndMap;
  return "# Written by scaleout-gui: every value in SI units.\n" + std::string(out.c_str()) + "\n";
}

void save_plan(const Plan& plan, const std::string& path) {
  write_file_atomic(path, plan_to_yaml(plan));
}

}  // namespace scaleout::core

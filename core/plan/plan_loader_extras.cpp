#include "core/plan/plan_loader_extras.hpp"

#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "core/codecs/compression.hpp"
#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"
#include "core/plan/units.hpp"

namespace scaleout::core {

namespace {

using FusionKind = Training::Fusion::Kind;

// `key` of `parent` when given (nullopt when absent; either way the key counts as read).
std::optional<YAML::Node> given_child(YamlMap& parent, const char* key) {
  if (!parent.has(key)) {
    parent.child(key, false);
    return std::nullopt;
  }
  return parent.child(key);
}

// The mapping under `key` when given, its line in `line`; refused with `example` when it is not
// a mapping.
std::optional<YAML::Node> given_mapping(YamlMap& parent, const char* key, const char* example,
                                        int& line) {
  std::optional<YAML::Node> given = given_child(parent, key);
  if (!given) return std::nullopt;
  line = line_of(*given);
  if (!given->IsMap()) parent.fail(key, std::string("expected a mapping such as ") + example);
  return given;
}

Training::Fusion read_fusion(YamlMap& parent, bool buffer_given) {
  Training::Fusion f;
  std::optional<YAML::Node> given =
      given_mapping(parent, "fusion", "{ kind: ddp, bucket_cap: 25MiB }", f.line);
  if (!given) return f;
  YamlMap m(*given, parent.file(), parent.field("fusion"));
  std::string kind = m.get_choice("kind", {"legacy", "horovod", "ddp"});
  if (kind == "horovod") {
    f.kind = FusionKind::kHorovod;
    f.cycle_time = m.get_quantity("cycle_time", Quantity::kTime, f.cycle_time);
    f.threshold = m.get_quantity("threshold", Quantity::kBytes, f.threshold);
  } else if (kind == "ddp") {
    f.kind = FusionKind::kDdp;
    f.bucket_cap = m.get_quantity("bucket_cap", Quantity::kBytes, f.bucket_cap);
    f.first_bucket = m.get_quantity("first_bucket", Quantity::kBytes, f.first_bucket);
    if (f.first_bucket > f.bucket_cap)
      m.fail("first_bucket", "larger than bucket_cap (the first bucket is the small one)");
  }
  m.finish();
  if (f.kind != FusionKind::kLegacy && buffer_given)
    parent.fail("fusion_buffer", "is the legacy fusion's bucket size; with fusion kind " + kind +
                                     " give the size inside training.fusion");
  return f;
}

// fp16 is the precision path (gradient_precision: fp16); the other kinds carry their own wire
// format computed from fp32 gradients.
void apply_compression_precision(YamlMap& parent, Training& t, bool precision_given) {
  const Compression& c = t.compression;
  if (c.kind == CompressionKind::kFp16) {
    if (precision_given && t.gradient_precision != "fp16")
      parent.fail("gradient_precision",
                  "compression fp16 sends the gradient as fp16; leave "
                  "gradient_precision out or give fp16");
    t.gradient_precision = "fp16";
    t.gradient_bytes_per_element = 2;
  } else if (c.on() && t.gradient_precision != "fp32") {
    parent.fail("gradient_precision", std::string("compression ") + compression_name(c.kind) +
                                          " encodes fp32 gradients in its own wire format; give "
                                          "gradient_precision fp32");
  }
}

// Random-k's shared indices (refused on the other kinds).
void read_shared_indices(YamlMap& m, const YAML::Node& node, Compression& c) {
  if (!node["shared_indices"]) return;
  c.shared_indices_line = line_of(node["shared_indices"]);
  if (c.kind != CompressionKind::kRandomk)
    m.fail("shared_indices", "applies to randomk only: " + std::string(compression_name(c.kind)) +
                                 (c.kind == CompressionKind::kTopk
                                      ? " picks each worker's largest elements, which differ"
                                      : " sends no indices"));
  c.shared_indices = m.get_bool("shared_indices", false);
}

// The quantized kinds' bits (quantize), exchange and chunk.
void read_quantized(YamlMap& m, const YAML::Node& node, Compression& c) {
  if (c.kind == CompressionKind::kQuantize) {
    c.bits_line = line_of(node["bits"]);
    c.bits = m.get_int_or("bits", 1, c.bits);
    if (c.bits != 1 && c.bits != 2 && c.bits != 4 && c.bits != 8)
      m.fail("bits", "must be 1, 2, 4 or 8 (bits an element; got " + std::to_string(c.bits) + ")");
  }
  if (node["exchange"]) {
    c.exchange_line = line_of(node["exchange"]);
    if (!c.quantized())
      m.fail("exchange", "applies to int8, onebit and quantize: " +
                             std::string(compression_name(c.kind)) + " has one exchange");
    c.allgather = m.get_choice("exchange", {"allreduce", "allgather"}) == "allgather";
  }
  if (c.quantized()) {
    c.chunk_line = line_of(node["chunk"]);
    c.chunk = m.get_quantity("chunk", Quantity::kBytes, c.chunk);
    if (c.chunk < 4) m.fail("chunk", "must hold at least one fp32 element (4 bytes)");
  }
}

// signSGD's majority vote: 1-bit codes without error feedback (the exchange is checked with the
// strategy: core/plan/plan_validation.cpp).
void read_majority_vote(YamlMap& m, const YAML::Node& node, Compression& c) {
  if (!node["majority_vote"]) return;
  c.majority_vote_line = line_of(node["majority_vote"]);
  c.majority_vote = m.get_bool("majority_vote", false);
  if (!c.majority_vote) return;
  if (!c.quantized() || c.quantize_bits() != 1)
    m.fail("majority_vote", "applies to signs (onebit, or quantize with bits: 1), not " +
                                std::string(compression_name(c.kind)));
  if (c.error_feedback)
    m.fail("majority_vote", "keeps no error feedback (signSGD's vote): give error_feedback: false");
}

Compression read_compression(YamlMap& parent) {
  Compression c;
  std::optional<YAML::Node> given =
      given_mapping(parent, "compression", "{ kind: topk, density: 0.001 }", c.line);
  if (!given) return c;
  const YAML::Node& node = *given;
  YamlMap m(node, parent.file(), parent.field("compression"));
  std::vector<std::string> kinds;
  for (const char* name : compression_names()) kinds.push_back(name);
  c.kind = *parse_compression_kind(m.get_choice("kind", kinds));
  bool sparse = c.sparse();
  if (sparse) {
    c.density_line = line_of(node["density"]);
    c.density = m.get_double("density", 1e-12, 1.0, c.density);
  }
  read_shared_indices(m, node, c);
  read_quantized(m, node, c);
  if (c.kind == CompressionKind::kPowersgd) {
    c.rank_line = line_of(node["rank"]);
    c.rank = m.get_int_or("rank", 1, c.rank);
  }
  if (sparse || c.quantized() || c.kind == CompressionKind::kPowersgd)
    c.error_feedback = m.get_bool("error_feedback", true);
  read_majority_vote(m, node, c);
  m.finish();
  return c;
}

}  // namespace

double read_elements_rate(YamlMap& m, const char* key, double fallback) {
  if (!m.has(key)) {
    m.child(key, false);
    return fallback;
  }
  std::string given = m.get_string(key), text = given;
  if (text.size() > 2 && text.substr(text.size() - 2) == "/s") text.resize(text.size() - 2);
  auto value = parse_quantity(text, Quantity::kCount);
  if (!value || *value <= 0)
    m.fail(key, "expected elements per second such as 2.5G/s, got '" + given + "'");
  return *value;
}

void read_compress_rates(YamlMap& device, DeviceSpec& d) {
  std::optional<YAML::Node> given = given_child(device, "compress");
  if (!given) return;
  YAML::Node node = *given;
  d.compress_line = line_of(node);
  if (!node.IsMap())
    device.fail("compress", "expected elements per second, e.g. { topk: 2.5G/s, quantize: 40G/s }");
  YamlMap m(node, device.file(), device.field("compress"));
  d.compress_topk = read_elements_rate(m, "topk", d.compress_topk);
  d.compress_quantize = read_elements_rate(m, "quantize", d.compress_quantize);
  d.compress_lowrank = read_elements_rate(m, "lowrank", d.compress_lowrank);
  m.finish();
}

void read_training_extras(YamlMap& m, Training& t) {
  bool precision_given = m.has("gradient_precision");
  t.compression = read_compression(m);
  apply_compression_precision(m, t, precision_given);
  t.fusion = read_fusion(m, t.fusion_line > 0);
  if (m.has("efficiency")) {
    t.efficiency = m.get_double("efficiency", 1e-6, 1.0);
    t.efficiency_line = line_of(m.node()["efficiency"]);
  }
  if (m.has("global_batch")) {
    if (t.batch_line > 0)
      m.fail("global_batch", "give either batch_per_worker or global_batch, not both");
    t.global_batch = m.get_int("global_batch", 1);
    t.global_batch_line = line_of(m.node()["global_batch"]);
  }
}

void read_measured_throughput(YamlMap& m, Workload& w) {
  std::optional<YAML::Node> given = given_child(m, "measured_throughput");
  if (!given) return;
  YAML::Node node = *given;
  w.measured_line = line_of(node);
  if (!node.IsMap() || node.size() == 0)
    m.fail("measured_throughput",
           "expected samples/s per device name, e.g. { V100: 360, P100: 220 }");
  YamlMap rates(node, m.file(), m.field("measured_throughput"));
  for (const auto& kv : node) {
    std::string name = kv.first.Scalar();
    w.measured_throughput.push_back({name, rates.get_double(name, 1e-9, 1e12)});
  }
  rates.finish();
}

void read_efficiency_by_size(YamlMap& m, Workload& w) {
  std::optional<YAML::Node> given = given_child(m, "efficiency_by_size");
  if (!given) return;
  YAML::Node node = *given;
  w.efficiency_by_size_line = line_of(node);
  const std::string example =
      "expected [[size, efficiency], ...] by ascending size, e.g. [[1GFLOP, 0.3], [1TFLOP, 0.6]]";
  if (!w.transformer)
    m.fail("efficiency_by_size",
           "applies to a transformer workload: the matrix products' sizes come from transformer:");
  if (!node.IsSequence() || node.size() == 0) m.fail("efficiency_by_size", example);
  for (std::size_t i = 0; i < node.size(); ++i) {
    std::string field = m.field("efficiency_by_size") + "[" + std::to_string(i) + "]";
    const YAML::Node& point = node[i];
    if (!point.IsSequence() || point.size() != 2)
      throw InputError(m.file(), line_of(point), field, example);
    double size = read_quantity(point[0], Quantity::kFlop, m.file(), field);
    double efficiency = read_quantity(point[1], Quantity::kCount, m.file(), field);
    if (!(efficiency > 0 && efficiency <= 1))
      throw InputError(m.file(), line_of(point), field, "an efficiency is in (0, 1]");
    if (!(size > 0) || (!w.efficiency_by_size.empty() && size <= w.efficiency_by_size.back().first))
      throw InputError(m.file(), line_of(point), field,
                       "sizes are positive and ascend: " + example);
    w.efficiency_by_size.push_back({size, efficiency});
  }
}

namespace {

constexpr std::int64_t kMaxTensors = 1 << 24;  // entries after repeats: bounds the list's memory

// One entry of `tensors`: a count, or { parameters: N, repeat: K }. Returns (count, repeat).
std::pair<std::int64_t, std::int64_t> read_tensor_entry(const YAML::Node& t, const YamlMap& m,
                                                        std::size_t i) {
  std::string field = m.field("tensors") + "[" + std::to_string(i) + "]";
  double count = 0;
  std::int64_t repeat = 1;
  if (t.IsMap()) {
    YamlMap e(t, m.file(), field);
    count = e.get_quantity("parameters", Quantity::kCount);
    repeat = e.get_int("repeat", 1, static_cast<int>(kMaxTensors));
    e.finish();
  } else {
    count = read_quantity(t, Quantity::kCount, m.file(), field);
  }
  if (count != std::floor(count) || count > kMaxParameters)
    throw InputError(m.file(), line_of(t), field,
                     "expected a whole number of parameters, at most " +
                         std::to_string(static_cast<long long>(kMaxParameters)));
  return {static_cast<std::int64_t>(count), repeat};
}

}  // namespace

void read_tensors(YamlMap& m, Workload& w) {
  std::optional<YAML::Node> given = given_child(m, "tensors");
  if (!given) return;
  YAML::Node node = *given;
  w.tensors_line = line_of(node);
  if (!node.IsSequence() || node.size() == 0)
    m.fail(
        "tensors",
        "expected parameter counts in backward order, e.g. [1M, { parameters: 4M, repeat: 24 }]");
  std::int64_t total = 0;
  for (std::size_t i = 0; i < node.size(); ++i) {
    auto [count, repeat] = read_tensor_entry(node[i], m, i);
    if (static_cast<std::int64_t>(w.tensors.size()) + repeat > kMaxTensors)
      m.fail("tensors", "lists more than " + std::to_string(kMaxTensors) + " tensors");
    w.tensors.insert(w.tensors.end(), static_cast<std::size_t>(repeat), count);
    total += count * repeat;
  }
  if (total != std::llround(w.parameters))
    m.fail("tensors", "add up to " + std::to_string(total) + " parameters; the model has " +
                          std::to_string(std::llround(w.parameters)));
}

}  // namespace scaleout::core

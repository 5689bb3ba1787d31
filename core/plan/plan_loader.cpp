#include "core/plan/plan_loader.hpp"

#include <climits>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "core/model/host_costs.hpp"
#include "core/model/model_memory.hpp"
#include "core/model/transport.hpp"
#include "core/plan/device_presets.hpp"
#include "core/plan/input_error.hpp"
#include "core/plan/model_parallel_loader.hpp"
#include "core/plan/network_model.hpp"
#include "core/plan/node_fabric_loader.hpp"
#include "core/plan/plan_loader_extras.hpp"
#include "core/plan/strategy_settings.hpp"
#include "core/plan/yaml_reader.hpp"

namespace scaleout::core {

namespace fs = std::filesystem;

namespace {

std::string too_large(const std::string& what, double limit) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", limit);
  return "more " + what + " than scaleout takes (" + buf + ")";
}

// yaml-cpp throws its own exceptions for conversions the readers did not foresee; they are the
// user's input all the same.
template <typename F>
auto as_input_error(const std::string& path, F&& read) {
  try {
    return read();
  } catch (const YAML::Exception& e) {
    throw InputError(path, e.mark.is_null() ? 0 : e.mark.line + 1, "", e.msg);
  }
}

NetworkSpec read_network(YamlMap& parent) {
  NetworkSpec net;
  if (!parent.has("network")) {
    parent.child("network", false);
    return net;
  }
  YamlMap m(parent.child("network"), parent.file(), parent.field("network"));
  std::string kind =
      m.get_choice("kind", {"switch", "two_tier", "fat_tree", "torus2d", "explicit"}, "switch");
  if (kind == "switch") {
    net.kind = NetworkKind::kSwitch;
  } else if (kind == "two_tier") {
    net.kind = NetworkKind::kTwoTier;
    net.hosts_per_rack = m.get_int("hosts_per_rack", 1);
    net.uplink = read_link(m, "uplink");
  } else if (kind == "fat_tree") {
    net.kind = NetworkKind::kFatTree;
    net.fat_tree_k = m.get_int("k", 2, kMaxFatTreeK);
    if (net.fat_tree_k % 2 != 0) m.fail("k", "a fat tree's k must be even");
    if (m.has("link")) net.fabric = read_link(m, "link");
  } else if (kind == "torus2d") {
    net.kind = NetworkKind::kTorus2d;
    YAML::Node dims = m.child("dims");
    if (!dims.IsSequence() || dims.size() != 2) m.fail("dims", "expected two numbers, e.g. [4, 4]");
    for (int i = 0; i < 2; ++i) {
      auto d = read_whole(dims[i], 1, kMaxNodes);
      if (!d) m.fail("dims", "expected two whole numbers, each " + whole_range(1, kMaxNodes));
      net.dims[i] = static_cast<int>(*d);
    }
    if (static_cast<long long>(net.dims[0]) * net.dims[1] > kMaxNodes)
      m.fail("dims", "more than " + std::to_string(kMaxNodes) + " nodes");
    if (m.has("link")) net.fabric = read_link(m, "link");
  } else {
    net.kind = NetworkKind::kExplicit;
  }
  m.finish();
  return net;
}

void read_explicit(YamlMap& m, Cluster& c) {
  YAML::Node hosts = m.child("hosts");
  if (!hosts.IsSequence() || hosts.size() == 0) m.fail("hosts", "expected a list of hosts");
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    YamlMap h(hosts[i], m.file(), m.field("hosts") + "[" + std::to_string(i) + "]");
    ExplicitHost host;
    host.name = h.get_string("name");
    host.devices = h.get_int_or("devices", 1, 1, kMaxDevicesPerNode);
    h.finish();
    c.hosts.push_back(host);
  }
  YAML::Node switches = m.child("switches", false);
  if (switches.IsDefined()) {
    if (!switches.IsSequence()) m.fail("switches", "expected a list of switch names");
    for (const auto& s : switches) {
      if (!s.IsScalar()) m.fail("switches", "expected a list of switch names");
      c.switches.push_back(s.Scalar());
    }
  }
  YAML::Node links = m.child("links");
  if (!links.IsSequence() || links.size() == 0) m.fail("links", "expected a list of links");
  for (std::size_t i = 0; i < links.size(); ++i) {
    YamlMap l(links[i], m.file(), m.field("links") + "[" + std::to_string(i) + "]");
    ExplicitLink link;
    link.a = l.get_string("a");
    link.b = l.get_string("b");
    link.link.bandwidth = l.get_quantity("bandwidth", Quantity::kBandwidth);
    link.link.latency = l.get_quantity("latency", Quantity::kTime, 0.0, false);
    link.line = line_of(links[i]);
    l.finish();
    c.links.push_back(link);
  }
}

// `storage: { write_bandwidth, read_bandwidth, host_copy_bandwidth }` (each optional).
Storage read_storage(YamlMap& parent) {
  YAML::Node node = parent.child("storage");
  YamlMap m(node, parent.file(), parent.field("storage"));
  Storage st;
  st.line = line_of(node);
  st.write_bandwidth = m.get_quantity("write_bandwidth", Quantity::kBandwidth, 0.0);
  st.read_bandwidth = m.get_quantity("read_bandwidth", Quantity::kBandwidth, 0.0);
  st.host_copy_bandwidth = m.get_quantity("host_copy_bandwidth", Quantity::kBandwidth, 0.0);
  m.finish();
  return st;
}

Cluster read_cluster(const YAML::Node& node, const std::string& file, const std::string& context) {
  YamlMap m(node, file, context);
  Cluster c;
  c.file = file;
  c.name = m.get_string("name", "cluster");
  c.calibrated_from = m.get_string("calibrated_from", "");
  read_network_model(m, c);
  {
    YamlMap d(m.child("device"), file, m.field("device"));
    c.device = read_device(d);
    read_compress_rates(d, c.device);
    d.finish();
  }
  c.network = read_network(m);
  read_node_fabric(m, c);  // intra_node and nics_per_node
  if (c.network.kind == NetworkKind::kExplicit) {
    read_explicit(m, c);
    m.child("devices_per_node", false);
    if (c.intra_node.bandwidth <= 0)
      m.fail("intra_node", "missing (required when hosts have devices)");
    if (m.has("nic")) c.nic = read_link(m, "nic");
  } else {
    c.devices_per_node = m.get_int_or("devices_per_node", 1, 1, kMaxDevicesPerNode);
    if (c.devices_per_node > 1 && c.intra_node.bandwidth <= 0)
      m.fail("intra_node", "missing (required when devices_per_node > 1)");
    if (c.intra_node.bandwidth <= 0) c.intra_node = {1e15, 0};  // one device: never crossed
    c.nic = read_link(m, "nic");
    YAML::Node nodes = m.child("nodes", false);
    if (nodes.IsDefined()) {
      auto n = read_whole(nodes, 1, kMaxNodes);
      if (nodes.IsScalar() && nodes.Scalar() == "auto") {
        c.nodes.reset();
      } else if (n) {
        c.nodes = static_cast<int>(*n);
      } else {
        m.fail("nodes", "expected 'auto' or " + whole_range(1, kMaxNodes));
      }
    }
  }
  if (m.has("speed_factors") || m.has("link_bandwidth")) c.heterogeneity.line = line_of(node);
  if (m.has("speed_factors")) {
    YamlMap f(m.child("speed_factors"), file, m.field("speed_factors"));
    for (const auto& kv : f.node()) {
      std::string name = kv.first.Scalar();
      c.heterogeneity.speed_factors.push_back({name, f.get_double(name, 1e-6, 1e6)});
    }
    f.finish();
  }
  if (m.has("link_bandwidth")) {
    YamlMap f(m.child("link_bandwidth"), file, m.field("link_bandwidth"));
    for (const auto& kv : f.node()) {
      std::string name = kv.first.Scalar();
      c.heterogeneity.link_bandwidth.push_back({name, f.get_quantity(name, Quantity::kBandwidth)});
    }
    f.finish();
  }
  if (m.has("price_per_device_hour"))
    c.price_per_device_hour = m.get_double("price_per_device_hour", 0.0, 1e9);
  if (m.has("host")) c.host = read_host_costs(m);
  if (m.has("transport")) c.transport = read_transport(m);
  if (m.has("storage")) c.storage = read_storage(m);
  m.finish();
  if (c.network.kind == NetworkKind::kTorus2d && c.nodes &&
      *c.nodes != c.network.dims[0] * c.network.dims[1])
    throw InputError(file, line_of(node["nodes"]), context.empty() ? "nodes" : context + ".nodes",
                     "a torus2d network of " + std::to_string(c.network.dims[0]) + "x" +
                         std::to_string(c.network.dims[1]) + " needs exactly " +
                         std::to_string(c.network.dims[0] * c.network.dims[1]) + " nodes");
  return c;
}

Workload read_workload(const YAML::Node& node, const std::string& file,
                       const std::string& context) {
  YamlMap m(node, file, context);
  Workload w;
  w.file = file;
  w.name = m.get_string("name");
  w.parameters_line = line_of(m.node()["parameters"]);
  w.flops_line = line_of(m.node()["flops_per_sample"]);
  if (!read_transformer(m, w)) {
    w.parameters = m.get_quantity("parameters", Quantity::kCount);
    w.flops_per_sample = m.get_quantity("flops_per_sample", Quantity::kFlop);
  }
  if (w.parameters > kMaxParameters) m.fail("parameters", too_large("parameters", kMaxParameters));
  if (w.flops_per_sample > kMaxFlopPerSample)
    m.fail("flops_per_sample", too_large("FLOP per sample", kMaxFlopPerSample));
  w.efficiency = m.get_double("efficiency", 1e-6, 1.0, 0.4);
  w.efficiency_line = line_of(m.node()["efficiency"]);
  YAML::Node layers = m.child("layers", false);
  if (layers.IsDefined()) {
    if (!layers.IsSequence()) m.fail("layers", "expected a list of layers");
    double share_sum = 0, param_sum = 0;
    for (std::size_t i = 0; i < layers.size(); ++i) {
      YamlMap l(layers[i], file, m.field("layers") + "[" + std::to_string(i) + "]");
      Layer layer;
      layer.name = l.get_string("name");
      layer.parameters = l.get_quantity("parameters", Quantity::kCount, /*positive=*/false);
      if (layer.parameters > kMaxParameters)
        l.fail("parameters", too_large("parameters", kMaxParameters));
      layer.backward_share = l.get_double("backward_share", 0.0, 1.0);
      l.finish();
      share_sum += layer.backward_share;
      param_sum += layer.parameters;
      w.layers.push_back(layer);
    }
    if (!w.layers.empty() && share_sum <= 0)
      m.fail("layers", "backward_share must add up to more than 0");
    if (param_sum > w.parameters * 1.001)
      m.fail("layers", "layer parameters add up to more than the model's parameters");
  }
  read_tensors(m, w);
  read_measured_throughput(m, w);
  read_efficiency_by_size(m, w);
  m.finish();
  return w;
}

// Resolves a part given as a path (relative to the including file) or inline; returns the node and
// the file its lines refer to.
std::pair<YAML::Node, std::string> resolve_part(YamlMap& m, const std::string& key) {
  YAML::Node value = m.child(key);
  if (value.IsMap()) return {value, m.file()};
  if (!value.IsScalar()) m.fail(key, "expected a path to a YAML file or an inline mapping");
  fs::path path = fs::path(value.as<std::string>());
  if (path.is_relative()) path = fs::path(m.file()).parent_path() / path;
  std::string p = path.lexically_normal().string();
  std::error_code ec;
  fs::file_status status = fs::status(p, ec);
  if (ec || !fs::exists(status)) m.fail(key, "file not found: " + p);
  if (!fs::is_regular_file(status)) m.fail(key, "not a regular file: " + p);
  if (fs::file_size(p, ec) > kMaxYamlFileBytes)
    m.fail(key, p + " is larger than " + std::to_string(kMaxYamlFileBytes >> 20) + " MiB");
  return {load_yaml_file(p), p};
}

Training read_training(YamlMap& parent) {
  YamlMap m(parent.child("training"), parent.file(), "training");
  Training t;
  t.workers = m.get_int("workers", 1);
  t.workers_line = line_of(m.node()["workers"]);
  t.batch_per_worker = m.get_int_or("batch_per_worker", 1, 32);
  t.batch_line = line_of(m.node()["batch_per_worker"]);
  t.steps = m.get_int_or("steps", 1, 1);
  t.steps_line = line_of(m.node()["steps"]);
  t.gradient_precision = m.get_choice("gradient_precision", {"fp32", "fp16", "bf16"}, "fp32");
  t.gradient_bytes_per_element = t.gradient_precision == "fp32" ? 4 : 2;
  if (m.has("precision")) {
    t.precision = m.get_choice("precision", peak_types());
    t.precision_line = line_of(m.node()["precision"]);
  }
  t.overlap = m.get_bool("overlap", false);
  t.fusion_buffer = m.get_quantity("fusion_buffer", Quantity::kBytes, t.fusion_buffer);
  t.fusion_line = line_of(m.node()["fusion_buffer"]);
  read_training_extras(m, t);
  m.finish();
  return t;
}

Stragglers read_stragglers(YamlMap& parent) {
  Stragglers st;
  if (!parent.has("stragglers")) {
    parent.child("stragglers", false);
    return st;
  }
  YamlMap m(parent.child("stragglers"), parent.file(), "stragglers");
  if (m.has("slow")) {
    YamlMap slow(m.child("slow"), m.file(), m.field("slow"));
    YAML::Node workers = slow.child("workers");
    if (!workers.IsSequence() || workers.size() == 0)
      slow.fail("workers", "expected a list of worker ranks");
    st.slow_workers_line = line_of(workers);
    for (const auto& w : workers) {
      auto r = read_whole(w, 0, INT_MAX);
      if (!r) slow.fail("workers", "expected worker ranks (0, 1, ...)");
      st.slow_workers.push_back(static_cast<int>(*r));
    }
    st.slow_factor = slow.get_double("factor", 1.0, 1e6);
    slow.finish();
  }
  if (m.has("random")) {
    YamlMap r(m.child("random"), m.file(), m.field("random"));
    std::string kind = r.get_choice("distribution", {"exponential", "lognormal", "bernoulli"});
    if (kind == "exponential") {
      st.random = SlowdownKind::kExponential;
      st.mean = r.get_double("mean", 0.0, 1e6);
    } else if (kind == "lognormal") {
      st.random = SlowdownKind::kLognormal;
      st.sigma = r.get_double("sigma", 0.0, 10.0);
    } else {
      st.random = SlowdownKind::kBernoulli;
      st.probability = r.get_double("probability", 0.0, 1.0);
      st.factor = r.get_double("factor", 1.0, 1e6);
    }
    st.seed = static_cast<std::uint64_t>(r.get_long_or("seed", 0, 1));
    r.finish();
  }
  m.finish();
  return st;
}

Resilience read_resilience(YamlMap& parent) {
  Resilience res;
  YAML::Node failures = parent.child("failures", false);
  if (failures.IsDefined()) {
    if (!failures.IsSequence())
      parent.fail("failures", "expected a list such as [{ node: 2, step: 5 }]");
    for (std::size_t i = 0; i < failures.size(); ++i) {
      YamlMap f(failures[i], parent.file(), "failures[" + std::to_string(i) + "]");
      Failure fail;
      fail.line = line_of(failures[i]);
      fail.node = f.get_int("node", 0);
      if (f.has("step") == f.has("time")) f.fail("step", "give exactly one of step or time");
      if (f.has("step")) fail.at_step = f.get_int("step", 0);
      if (f.has("time")) fail.at_time = f.get_quantity("time", Quantity::kTime, false);
      f.finish();
      res.failures.push_back(fail);
    }
  }
  if (parent.has("checkpoint")) {
    YAML::Node node = parent.child("checkpoint");
    YamlMap c(node, parent.file(), "checkpoint");
    res.checkpoint_line = line_of(node);
    // `every`: a whole number of steps, or a time of training between checkpoints ("30min").
    YAML::Node every = c.child("every");
    if (read_whole(every, 1, INT_MAX))
      res.checkpoint_every = c.get_int("every", 1);
    else
      res.checkpoint_every_s = c.get_quantity("every", Quantity::kTime);
    res.checkpoint_cost_given = c.has("cost");
    res.checkpoint_cost = c.get_quantity("cost", Quantity::kTime, 0.0, false);
    res.checkpoint_asynchronous = c.get_bool("asynchronous", false);
    res.restart_time = c.get_quantity("restart", Quantity::kTime, 0.0, false);
    c.finish();
  } else {
    parent.child("checkpoint", false);
  }
  return res;
}

// Nodes that slow down without failing: all three of slow_mtbf, slow_speed and slow_for, or none.
void read_slow_nodes(YamlMap& m, Reliability& r) {
  if (!m.has("slow_mtbf") && !m.has("slow_speed") && !m.has("slow_for")) return;
  for (const char* key : {"slow_mtbf", "slow_speed", "slow_for"})
    if (!m.has(key))
      m.fail(key,
             "slow nodes need slow_mtbf (how often a node slows, such as 30d), slow_speed (the "
             "share of its pace it keeps, such as 0.5) and slow_for (how long until it is found "
             "and drained, such as 2h)");
  r.slow_mtbf = m.get_quantity("slow_mtbf", Quantity::kTime);
  r.slow_speed = m.get_double("slow_speed", 1e-6, 1);
  r.slow_for = m.get_quantity("slow_for", Quantity::kTime);
}

std::optional<Reliability> read_reliability(YamlMap& parent) {
  if (!parent.has("reliability")) return std::nullopt;
  YAML::Node node = parent.child("reliability");
  YamlMap m(node, parent.file(), "reliability");
  Reliability r;
  r.line = line_of(node);
  r.gpu_mtbf = m.get_quantity("gpu_mtbf", Quantity::kTime, 0.0);
  r.node_mtbf = m.get_quantity("node_mtbf", Quantity::kTime, 0.0);
  r.link_mtbf = m.get_quantity("link_mtbf", Quantity::kTime, 0.0);
  if (!m.has("gpu_mtbf") && !m.has("node_mtbf") && !m.has("link_mtbf"))
    m.fail("gpu_mtbf", "give at least one of gpu_mtbf, node_mtbf or link_mtbf (such as 50000h)");
  r.seed = static_cast<std::uint64_t>(m.get_long_or("seed", 0, 1));
  r.samples = m.get_int_or("samples", 1, 100, 100000);
  if (m.has("train_steps") && m.has("train_tokens"))
    m.fail("train_tokens", "give one of train_steps or train_tokens");
  r.train_steps = m.get_quantity("train_steps", Quantity::kCount, 0.0);
  r.train_tokens = m.get_quantity("train_tokens", Quantity::kCount, 0.0);
  r.repair = m.get_quantity("repair", Quantity::kTime, 0.0);
  r.hot_spares = m.get_int_or("hot_spares", 0, 0, 1000000);
  if (m.has("hot_spares") && !(r.repair > 0))
    m.fail("hot_spares",
           "spares matter only while a failed node is away: give repair, the time a failed node "
           "takes to come back (such as 48h)");
  read_slow_nodes(m, r);
  m.finish();
  return r;
}

}  // namespace

const std::vector<std::string>& strategy_names() {
  static const std::vector<std::string> names = {"ps",
                                                 "ring",
                                                 "torus2d",
                                                 "hierarchical_ring",
                                                 "halving_doubling",
                                                 "tree",
                                                 "hierarchical_allreduce",
                                                 "hierarchical_halving_doubling"};
  return names;
}

const char* strategy_name(StrategyKind kind) {
  return strategy_names()[static_cast<int>(kind)].c_str();
}

std::optional<StrategyKind> parse_strategy_kind(const std::string& name) {
  const auto& names = strategy_names();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<StrategyKind>(i);
  return std::nullopt;
}

Cluster load_cluster(const std::string& path) {
  return as_input_error(path, [&] { return read_cluster(load_yaml_file(path), path, ""); });
}

Workload load_workload(const std::string& path) {
  return as_input_error(path, [&] { return read_workload(load_yaml_file(path), path, ""); });
}

namespace {

std::vector<StrategyKind> kinds_named(const PlanOverrides& overrides) {
  std::vector<StrategyKind> kinds = overrides.strategies;
  if (overrides.strategy) kinds.push_back(*overrides.strategy);
  return kinds;
}

Plan read_plan(const std::string& path, const PlanOverrides& overrides) {
  YAML::Node root = load_yaml_file(path);
  YamlMap m(root, path, "");
  Plan plan;
  plan.file = path;
  {
    auto [node, file] = resolve_part(m, "cluster");
    plan.cluster = read_cluster(node, file, file == path ? "cluster" : "");
  }
  {
    auto [node, file] = resolve_part(m, "workload");
    plan.workload = read_workload(node, file, file == path ? "workload" : "");
  }
  plan.strategy = read_strategy(m, kinds_named(overrides), plan.warnings);
  plan.training = read_training(m);
  plan.stragglers = read_stragglers(m);
  plan.resilience = read_resilience(m);
  plan.reliability = read_reliability(m);
  plan.parallelism = read_parallelism(m);
  m.finish();
  if (overrides.workers && *overrides.workers != plan.training.workers) {
    plan.training.workers = *overrides.workers;
    plan.strategy.grid.reset();  // a fixed torus grid fits one worker count only: choose anew
  }
  // The knobs of every kind are fields of their own (see strategy_settings.hpp): choosing another
  // kind uses the ones its section or the flat form gave.
  if (overrides.strategy) plan.strategy.kind = *overrides.strategy;
  choose_peak(plan);
  apply_global_batch(plan, overrides.split_searched);
  validate_plan(plan, overrides.split_searched);
  if (std::string w = data_parallel_memory_warning(plan); !w.empty()) plan.warnings.push_back(w);
  return plan;
}

}  // namespace

Plan load_plan(const std::string& path, const PlanOverrides& overrides) {
  return as_input_error(path, [&] { return read_plan(path, overrides); });
}

}  // namespace scaleout::core

#include "core/results/result.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/reliability/reliability_result.hpp"
#include "core/results/model_parallel_result.hpp"

namespace scaleout::core {

using nlohmann::json;

// The keys of the first version; to_json adds the later ones.
static json first_keys(const RunResult& r) {
  json steps = json::array();
  for (const auto& s : r.steps) steps.push_back({{"step", s.step}, {"time_s", s.time_s}});
  json baselines = json::array();
  for (const auto& b : r.baselines) {
    baselines.push_back({{"name", b.name},
                         {"time_s", b.time_s},
                         {"algbw_Bps", b.algbw_Bps},
                         {"busbw_Bps", b.busbw_Bps},
                         {"wrong", b.wrong}});
    if (!b.error.empty()) baselines.back()["error"] = b.error;
  }
  json links = json::array();
  for (const auto& l : r.links)
    links.push_back({{"name", l.name}, {"bytes", l.bytes}, {"utilization", l.utilization}});
  return json{{"engine", r.engine},
              {"strategy", r.strategy},
              {"fidelity", r.fidelity},
              {"plan", r.plan},
              {"cluster", r.cluster},
              {"workload", r.workload},
              {"network_model", r.network_model},
              {"workers", r.workers},
              {"servers", r.servers},
              {"precision", r.precision},
              {"bytes", r.bytes},
              {"step_time_s", r.step_time_s},
              {"throughput_samples_per_s", r.throughput_samples_per_s},
              {"scaling_efficiency", r.scaling_efficiency},
              {"phases",
               {{"compute_s", r.phases.compute_s},
                {"comm_s", r.phases.comm_s},
                {"exposed_comm_s", r.phases.exposed_comm_s},
                {"idle_s", r.phases.idle_s}}},
              {"algbw_Bps", r.algbw_Bps},
              {"busbw_Bps", r.busbw_Bps},
              {"staleness",
               {{"mean", r.staleness.mean},
                {"p50", r.staleness.p50},
                {"p99", r.staleness.p99},
                {"max", r.staleness.max},
                {"histogram", r.staleness.histogram}}},
              {"steps", steps},
              {"links", links},
              {"gradients", {{"applied", r.gradients.applied}, {"dropped", r.gradients.dropped}}},
              {"wrong", r.wrong},
              {"baselines", baselines},
              {"resilience",
               {{"policy", r.resilience.policy},
                {"failures", r.resilience.failures},
                {"wall_s", r.resilience.wall_s},
                {"lost_work_s", r.resilience.lost_work_s},
                {"restart_s", r.resilience.restart_s},
                {"checkpoint_s", r.resilience.checkpoint_s},
                {"goodput_samples_per_s", r.resilience.goodput_samples_per_s},
                {"left_workers", r.resilience.left_workers}}},
              {"wall_s", r.wall_s},
              {"warnings", r.warnings}};
}

json to_json(const RunResult& r) {
  json j = first_keys(r);
  j["fusion"] = r.fusion;
  j["buckets"] = r.buckets;
  j["grid"] = r.grid;
  j["baseline"] = {{"workers", r.baseline_workers}, {"efficiency", r.baseline_efficiency}};
  if (r.model_parallel) add_model_parallel_keys(j, *r.model_parallel);
  if (r.stamp) j["plan_stamp"] = stamp_to_json(*r.stamp);
  if (r.reliability) j["reliability"] = reliability_to_json(*r.reliability);
  if (r.compensation)
    j["delay_compensation"] = {{"lambda", r.compensation->lambda},
                               {"learning_rate", r.compensation->learning_rate},
                               {"server_update_s_per_push", r.compensation->update_s},
                               {"server_pulled_copies_bytes", r.compensation->pulled_bytes}};
  if (r.compression)
    j["compression"] = {
        {"kind", r.compression->kind},
        {"wire_bytes_per_worker_uncompressed", r.compression->wire_bytes_uncompressed},
        {"wire_bytes_per_worker", r.compression->wire_bytes},
        {"codec_s_at_device_rates", r.compression->codec_s},
        {"error_feedback_bytes", r.compression->error_feedback_bytes}};
  if (r.compression && r.compression->shared_indices) j["compression"]["shared_indices"] = true;
  return j;
}

void set_baseline(RunResult& r, const RunResult& base) {
  r.baseline_workers = base.workers;
  double per_worker = r.throughput_samples_per_s / r.workers;
  double base_per_worker = base.throughput_samples_per_s / base.workers;
  r.baseline_efficiency = base_per_worker > 0 ? per_worker / base_per_worker : 0;
}

namespace {
const json& need(const json& j, const char* key) {
  if (!j.contains(key))
    throw std::runtime_error(std::string("result JSON lacks the key '") + key + "'");
  return j.at(key);
}
// The figures a result may lack: a measured result from another framework (docs/results.md)
// gives what its logs give, and what it lacks is 0 and not compared.
void read_measured_figures(const json& j, RunResult& r) {
  r.bytes = j.value("bytes", 0.0);
  r.throughput_samples_per_s = j.value("throughput_samples_per_s", 0.0);
  r.scaling_efficiency = j.value("scaling_efficiency", 0.0);
  const json ph = j.value("phases", json::object());
  r.phases = {ph.value("compute_s", 0.0), ph.value("comm_s", 0.0), ph.value("exposed_comm_s", 0.0),
              ph.value("idle_s", 0.0)};
  r.algbw_Bps = j.value("algbw_Bps", 0.0);
  r.busbw_Bps = j.value("busbw_Bps", 0.0);
  const json st = j.value("staleness", json::object());
  r.staleness.mean = st.value("mean", 0.0);
  r.staleness.p50 = st.value("p50", 0);
  r.staleness.p99 = st.value("p99", 0);
  r.staleness.max = st.value("max", 0);
  r.staleness.histogram = st.value("histogram", std::vector<long>{});
  for (const auto& s : j.value("steps", json::array()))
    r.steps.push_back({s.at("step").get<int>(), s.at("time_s").get<double>()});
  for (const auto& l : j.value("links", json::array()))
    r.links.push_back({l.at("name").get<std::string>(), l.at("bytes").get<double>(),
                       l.at("utilization").get<double>()});
}

}  // namespace

RunResult result_from_json(const json& j) {
  RunResult r;
  r.engine = need(j, "engine").get<std::string>();
  r.strategy = need(j, "strategy").get<std::string>();
  r.fidelity = j.value("fidelity", "");
  r.plan = j.value("plan", "");
  r.cluster = j.value("cluster", "");
  r.workload = j.value("workload", "");
  r.network_model = j.value("network_model", "");
  r.workers = need(j, "workers").get<int>();
  r.servers = j.value("servers", 0);
  r.precision = j.value("precision", "fp32");
  r.step_time_s = need(j, "step_time_s").get<double>();
  read_measured_figures(j, r);
  if (j.contains("gradients")) {
    r.gradients.applied = j["gradients"].value("applied", 0L);
    r.gradients.dropped = j["gradients"].value("dropped", 0L);
  }
  r.wrong = j.value("wrong", 0L);
  r.stamp = stamp_from_json(j);
  if (j.contains("baselines"))
    for (const auto& b : j["baselines"])
      r.baselines.push_back({b.at("name").get<std::string>(), b.value("time_s", 0.0),
                             b.value("algbw_Bps", 0.0), b.value("busbw_Bps", 0.0),
                             b.value("wrong", 0L), b.value("error", "")});
  if (j.contains("resilience")) {
    const json& x = j["resilience"];
    r.resilience.policy = x.value("policy", "none");
    r.resilience.failures = x.value("failures", 0);
    r.resilience.wall_s = x.value("wall_s", 0.0);
    r.resilience.lost_work_s = x.value("lost_work_s", 0.0);
    r.resilience.restart_s = x.value("restart_s", 0.0);
    r.resilience.checkpoint_s = x.value("checkpoint_s", 0.0);
    r.resilience.goodput_samples_per_s = x.value("goodput_samples_per_s", 0.0);
    r.resilience.left_workers = x.value("left_workers", std::vector<int>{});
  }
  r.wall_s = j.value("wall_s", 0.0);
  r.warnings = j.value("warnings", std::vector<std::string>{});
  r.model_parallel = model_parallel_from_json(j);
  r.reliability = reliability_from_json(j);
  r.fusion = j.value("fusion", "legacy");
  r.buckets = j.value("buckets", 0.0);
  r.grid = j.value("grid", "");
  if (j.contains("compression")) {
    const json& c = j["compression"];
    r.compression = CompressionStep{
        c.at("kind").get<std::string>(),       c.value("wire_bytes_per_worker_uncompressed", 0.0),
        c.value("wire_bytes_per_worker", 0.0), c.value("codec_s_at_device_rates", 0.0),
        c.value("error_feedback_bytes", 0.0),  c.value("shared_indices", false)};
  }
  if (j.contains("delay_compensation")) {
    const json& c = j["delay_compensation"];
    r.compensation = CompensationCost{c.value("lambda", 0.0), c.value("learning_rate", 0.0),
                                      c.value("server_update_s_per_push", 0.0),
                                      c.value("server_pulled_copies_bytes", 0.0)};
  }
  if (j.contains("baseline")) {
    r.baseline_workers = j["baseline"].value("workers", 0);
    r.baseline_efficiency = j["baseline"].value("efficiency", 0.0);
  }
  return r;
}

Staleness staleness_from_histogram(std::vector<long> histogram) {
  Staleness s;
  long total = 0;
  double sum = 0;
  for (std::size_t i = 0; i < histogram.size(); ++i) {
    total += histogram[i];
    sum += static_cast<double>(i) * histogram[i];
  }
  if (total > 0) {
    s.mean = sum / total;
    auto quantile = [&](double q) {
      long need = static_cast<long>(std::ceil(q * total)), seen = 0;
      for (std::size_t i = 0; i < histogram.size(); ++i)
        if ((seen += histogram[i]) >= need) return static_cast<int>(i);
      return static_cast<int>(histogram.size()) - 1;
    };
    s.p50 = quantile(0.5);
    s.p99 = quantile(0.99);
    for (std::size_t i = 0; i < histogram.size(); ++i)
      if (histogram[i] > 0) s.max = static_cast<int>(i);
  }
  s.histogram = std::move(histogram);
  return s;
}

void fill_derived(RunResult& r, int batch_per_worker) {
  double beyond_compute = std::max(0.0, r.step_time_s - r.phases.compute_s);
  r.phases.exposed_comm_s = std::min(beyond_compute, r.phases.comm_s);
  r.phases.idle_s = beyond_compute - r.phases.exposed_comm_s;
  if (r.step_time_s > 0) {
    r.throughput_samples_per_s = static_cast<double>(r.workers) * batch_per_worker / r.step_time_s;
    r.scaling_efficiency = r.phases.compute_s / r.step_time_s;
  }
  if (r.phases.comm_s > 0 && r.workers > 1) {
    r.algbw_Bps = r.bytes / r.phases.comm_s;
    r.busbw_Bps = r.algbw_Bps * 2.0 * (r.workers - 1) / r.workers;
  }
}

void derive_from_applied(RunResult& r, int batch_per_worker, double applied, double span_s) {
  r.throughput_samples_per_s = span_s > 0 ? applied * batch_per_worker / span_s : 0;
  r.scaling_efficiency = r.workers > 0 ? r.throughput_samples_per_s * r.phases.compute_s /
                                             (static_cast<double>(r.workers) * batch_per_worker)
                                       : 0;
}

}  // namespace scaleout::core

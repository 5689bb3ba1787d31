#include "core/result.hpp"

#include <stdexcept>

namespace scaleout::core {

using nlohmann::json;

json to_json(const RunResult& r) {
  json steps = json::array();
  for (const auto& s : r.steps) steps.push_back({{"step", s.step}, {"time_s", s.time_s}});
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
              {"bytes", r.bytes},
              {"step_time_s", r.step_time_s},
              {"throughput_samples_per_s", r.throughput_samples_per_s},
              {"scaling_efficiency", r.scaling_efficiency},
              {"phases",
               {{"compute_s", r.phases.compute_s},
                {"comm_s", r.phases.comm_s},
                {"exposed_comm_s", r.phases.exposed_comm_s}}},
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
              {"wall_s", r.wall_s}};
}

namespace {
const json& need(const json& j, const char* key) {
  if (!j.contains(key)) throw std::runtime_error(std::string("result JSON lacks the key '") + key + "'");
  return j.at(key);
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
  r.bytes = need(j, "bytes").get<double>();
  r.step_time_s = need(j, "step_time_s").get<double>();
  r.throughput_samples_per_s = need(j, "throughput_samples_per_s").get<double>();
  r.scaling_efficiency = need(j, "scaling_efficiency").get<double>();
  const json& ph = need(j, "phases");
  r.phases = {need(ph, "compute_s").get<double>(), need(ph, "comm_s").get<double>(),
              need(ph, "exposed_comm_s").get<double>()};
  r.algbw_Bps = need(j, "algbw_Bps").get<double>();
  r.busbw_Bps = need(j, "busbw_Bps").get<double>();
  const json& st = need(j, "staleness");
  r.staleness.mean = need(st, "mean").get<double>();
  r.staleness.p50 = need(st, "p50").get<int>();
  r.staleness.p99 = need(st, "p99").get<int>();
  r.staleness.max = need(st, "max").get<int>();
  r.staleness.histogram = need(st, "histogram").get<std::vector<long>>();
  for (const auto& s : need(j, "steps")) r.steps.push_back({s.at("step").get<int>(), s.at("time_s").get<double>()});
  for (const auto& l : need(j, "links"))
    r.links.push_back({l.at("name").get<std::string>(), l.at("bytes").get<double>(), l.at("utilization").get<double>()});
  r.wall_s = j.value("wall_s", 0.0);
  return r;
}

void fill_derived(RunResult& r, int batch_per_worker) {
  if (r.step_time_s > 0) {
    r.throughput_samples_per_s = static_cast<double>(r.workers) * batch_per_worker / r.step_time_s;
    r.scaling_efficiency = r.phases.compute_s / r.step_time_s;
  }
  if (r.phases.comm_s > 0 && r.workers > 1) {
    r.algbw_Bps = r.bytes / r.phases.comm_s;
    r.busbw_Bps = r.algbw_Bps * 2.0 * (r.workers - 1) / r.workers;
  }
}

}  // namespace scaleout::core

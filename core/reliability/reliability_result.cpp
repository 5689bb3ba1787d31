#include "core/reliability/reliability_result.hpp"

#include <cmath>
#include <limits>
#include <utility>

namespace scaleout::core {

namespace {

using Field = std::pair<const char*, double ReliabilityOutcome::*>;

// Every number of the outcome but `samples`, under its key.
const Field kFields[] = {
    {"goodput", &ReliabilityOutcome::goodput},
    {"time_to_train_s", &ReliabilityOutcome::time_to_train_s},
    {"work_s", &ReliabilityOutcome::work_s},
    {"job_mtbf_s", &ReliabilityOutcome::job_mtbf_s},
    {"failures", &ReliabilityOutcome::failures},
    {"lost_work_s", &ReliabilityOutcome::lost_work_s},
    {"restart_s", &ReliabilityOutcome::restart_s},
    {"node_wait_s", &ReliabilityOutcome::node_wait_s},
    {"slow_s", &ReliabilityOutcome::slow_s},
    {"checkpoint_s", &ReliabilityOutcome::checkpoint_s},
    {"checkpoint_cost_s", &ReliabilityOutcome::checkpoint_cost_s},
    {"checkpoint_write_s", &ReliabilityOutcome::checkpoint_write_s},
    {"checkpoint_read_s", &ReliabilityOutcome::checkpoint_read_s},
    {"checkpoint_bytes", &ReliabilityOutcome::checkpoint_bytes},
    {"checkpoint_interval_s", &ReliabilityOutcome::checkpoint_interval_s},
    {"best_checkpoint_interval_s", &ReliabilityOutcome::best_checkpoint_interval_s},
    {"best_goodput", &ReliabilityOutcome::best_goodput},
    {"young_interval_s", &ReliabilityOutcome::young_interval_s},
    {"time_to_train_p10_s", &ReliabilityOutcome::time_to_train_p10_s},
    {"time_to_train_p50_s", &ReliabilityOutcome::time_to_train_p50_s},
    {"time_to_train_p90_s", &ReliabilityOutcome::time_to_train_p90_s},
    {"goodput_p10", &ReliabilityOutcome::goodput_p10},
    {"goodput_p50", &ReliabilityOutcome::goodput_p50},
    {"goodput_p90", &ReliabilityOutcome::goodput_p90},
};

}  // namespace

nlohmann::json reliability_to_json(const ReliabilityOutcome& o) {
  nlohmann::json j = nlohmann::json::object();
  // A run that cannot finish has an infinite time: JSON has no infinity, so it is written as null.
  for (const auto& [key, member] : kFields)
    j[key] = std::isfinite(o.*member) ? nlohmann::json(o.*member) : nlohmann::json(nullptr);
  j["samples"] = o.samples;
  if (!o.checkpoint_timed_by.empty()) j["checkpoint_timed_by"] = o.checkpoint_timed_by;
  return j;
}

std::optional<ReliabilityOutcome> reliability_from_json(const nlohmann::json& result) {
  if (!result.contains("reliability") || !result["reliability"].is_object()) return std::nullopt;
  const nlohmann::json& j = result["reliability"];
  ReliabilityOutcome o;
  for (const auto& [key, member] : kFields)
    if (j.contains(key))
      o.*member =
          j[key].is_number() ? j[key].get<double>() : std::numeric_limits<double>::infinity();
  o.samples = j.value("samples", 0);
  o.checkpoint_timed_by = j.value("checkpoint_timed_by", "");
  return o;
}

}  // namespace scaleout::core

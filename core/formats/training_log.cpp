#include "core/formats/training_log.hpp"

#include <algorithm>

#include "core/parallel/model_split.hpp"
#include "core/plan/input_error.hpp"
#include "core/plan/plan_stamp.hpp"

namespace scaleout::core {

std::optional<double> log_field(const std::string& line, const std::regex& label) {
  std::smatch m;
  if (!std::regex_search(line, m, label)) return std::nullopt;
  return std::stod(m[1].str());
}

nlohmann::json training_log_result(const std::vector<TrainingLogLine>& lines,
                                   const std::string& path, const Plan& plan, int warm_up,
                                   const std::string& engine) {
  if (static_cast<int>(lines.size()) <= warm_up)
    throw InputError(path, 0, "",
                     std::to_string(lines.size()) +
                         " iteration lines, all of them warm-up (the "
                         "first " +
                         std::to_string(warm_up) + " are dropped): log more iterations");
  double seconds = 0, iterations = 0;
  int skipped = 0, batch = 0;
  nlohmann::json steps = nlohmann::json::array();
  for (std::size_t i = warm_up; i < lines.size(); ++i) {
    const TrainingLogLine& l = lines[i];
    // The interval since the line before, which is dropped or kept (the first line: its own
    // iteration count), unless the line says what it covers.
    int covered =
        l.covers > 0 ? l.covers : std::max(1, l.iteration - (i > 0 ? lines[i - 1].iteration : 0));
    seconds += l.step_s * covered, iterations += covered;
    skipped += l.skipped;
    if (l.global_batch > 0) batch = l.global_batch;
    steps.push_back({{"step", l.iteration}, {"time_s", l.step_s}});
  }
  double step = seconds / iterations;
  if (batch == 0) batch = model_split(plan).global_batch;
  nlohmann::json j = {{"engine", engine},
                      {"strategy", strategy_name(plan.strategy.kind)},
                      {"workers", plan.training.workers},
                      {"step_time_s", step},
                      {"throughput_samples_per_s", batch / step},
                      {"steps", steps},
                      {"plan_stamp", stamp_to_json(plan_stamp(plan))}};
  j["log"] = {{"file", path},
              {"lines_kept", lines.size() - warm_up},
              {"iterations_kept", iterations},
              {"lines_dropped_as_warm_up", warm_up},
              {"skipped_iterations", skipped}};
  return j;
}

}  // namespace scaleout::core

// A framework's training log as a measured result of a plan: the logged intervals' iteration
// times, the first ones (warm-up: compilation, allocator, the data loader filling) dropped and
// said so. The readers of each framework's lines are core/formats/megatron_log.hpp and
// core/formats/deepspeed_log.hpp.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "core/plan/plan.hpp"

namespace scaleout::core {

struct TrainingLogLine {
  int iteration = 0;
  double step_s = 0;     // the interval's mean iteration
  int global_batch = 0;  // 0: the line does not say
  int skipped = 0;       // iterations skipped in the interval (loss scale overflow)
  int covers = 0;        // iterations the time stands for; 0: those since the line before
};

// The number `label`'s first group captures on `line`, if the line has it.
std::optional<double> log_field(const std::string& line, const std::regex& label);

// The measured result of `plan` from `lines` (read from `path`) after the first `warm_up`:
// `step_time_s` (the lines' mean iteration, weighted by the iterations each covers),
// `throughput_samples_per_s` (the global batch the log gives, else the plan's, over it), `steps`
// (one per line), `engine` and the plan's stamp; `log` says what was kept and dropped. Throws
// InputError naming the file when no line is left.
nlohmann::json training_log_result(const std::vector<TrainingLogLine>& lines,
                                   const std::string& path, const Plan& plan, int warm_up,
                                   const std::string& engine);

}  // namespace scaleout::core

#include "core/formats/megatron_log.hpp"

#include <fstream>
#include <regex>

#include "core/plan/input_error.hpp"

namespace scaleout::core {

std::vector<TrainingLogLine> read_megatron_log(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, 0, "", "cannot open file (does it exist?)");
  static const std::regex iteration(R"(\biteration\s+(\d+)\s*/\s*\d+)");
  static const std::regex elapsed(R"(elapsed time per iteration \(ms\):\s*([0-9.eE+-]+))");
  static const std::regex batch(R"(global batch size:\s*(\d+))");
  static const std::regex skipped(R"(number of skipped iterations:\s*(\d+))");
  std::vector<TrainingLogLine> lines;
  std::string text;
  while (std::getline(in, text)) {
    std::optional<double> at = log_field(text, iteration), ms = log_field(text, elapsed);
    if (!at || !ms) continue;
    TrainingLogLine l;
    l.iteration = static_cast<int>(*at);
    l.step_s = *ms / 1e3;
    l.global_batch = static_cast<int>(log_field(text, batch).value_or(0));
    l.skipped = static_cast<int>(log_field(text, skipped).value_or(0));
    lines.push_back(l);
  }
  if (lines.empty())
    throw InputError(path, 0, "",
                     "no iteration lines: Megatron-LM's training log prints ' iteration N/ M | ... "
                     "| elapsed time per iteration (ms): T | ...' every --log-interval iterations");
  return lines;
}

nlohmann::json megatron_log_result(const std::string& path, const Plan& plan, int warm_up) {
  return training_log_result(read_megatron_log(path), path, plan, warm_up, "megatron-lm");
}

}  // namespace scaleout::core

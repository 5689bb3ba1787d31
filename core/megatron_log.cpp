#include "core/megatron_log.hpp"

#include <fstream>
#include <regex>

#include "core/input_error.hpp"
#include "core/model_split.hpp"
#include "core/plan_stamp.hpp"

namespace scaleout::core {

namespace {

// The number after `label` on the line, if the line has it.
std::optional<double> field(const std::string& line, const std::regex& label) {
  std::smatch m;
  if (!std::regex_search(line, m, label)) return std::nullopt;
  return std::stod(m[1].str());
}

}  // namespace

std::vector<MegatronLogLine> read_megatron_log(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, 0, "", "cannot open file (does it exist?)");
  static const std::regex iteration(R"(\biteration\s+(\d+)\s*/\s*\d+)");
  static const std::regex elapsed(R"(elapsed time per iteration \(ms\):\s*([0-9.eE+-]+))");
  static const std::regex batch(R"(global batch size:\s*(\d+))");
  static const std::regex skipped(R"(number of skipped iterations:\s*(\d+))");
  std::vector<MegatronLogLine> lines;
  std::string text;
  while (std::getline(in, text)) {
    std::optional<double> at = field(text, iteration), ms = field(text, elapsed);
    if (!at || !ms) continue;
    MegatronLogLine l;
    l.iteration = static_cast<int>(*at);
    l.step_s = *ms / 1e3;
    l.global_batch = static_cast<int>(field(text, batch).value_or(0));
    l.skipped = static_cast<int>(field(text, skipped).value_or(0));
    lines.push_back(l);
  }
  if (lines.empty())
    throw InputError(path, 0, "",
                     "no iteration lines: Megatron-LM's training log prints ' iteration N/ M | ... "
                     "| elapsed time per iteration (ms): T | ...' every --log-interval iterations");
  return lines;
}

nlohmann::json megatron_log_result(const std::string& path, const Plan& plan, int warm_up) {
  std::vector<MegatronLogLine> lines = read_megatron_log(path);
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
    const MegatronLogLine& l = lines[i];
    // The interval since the line before, which is dropped or kept (the first line: its own
    // iteration count).
    int covered = std::max(1, l.iteration - (i > 0 ? lines[i - 1].iteration : 0));
    seconds += l.step_s * covered, iterations += covered;
    skipped += l.skipped;
    if (l.global_batch > 0) batch = l.global_batch;
    steps.push_back({{"step", l.iteration}, {"time_s", l.step_s}});
  }
  double step = seconds / iterations;
  if (batch == 0) batch = model_split(plan).global_batch;
  nlohmann::json j = {{"engine", "megatron-lm"},
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

#include "core/formats/deepspeed_log.hpp"

#include <fstream>
#include <regex>

#include "core/parallel/model_split.hpp"
#include "core/plan/input_error.hpp"

namespace scaleout::core {

namespace {

const std::regex& global_step() {
  static const std::regex re(R"(\bglobal_step=(\d+))");
  return re;
}

const std::regex& current() {
  static const std::regex re(R"(\bCurrSamplesPerSec=([0-9.eE+-]+))");
  return re;
}

const std::regex& running() {
  static const std::regex re(R"(\bRunningAvgSamplesPerSec=([0-9.eE+-]+))");
  return re;
}

}  // namespace

std::vector<TrainingLogLine> read_deepspeed_log(const std::string& path, int global_batch) {
  std::ifstream in(path);
  if (!in) throw InputError(path, 0, "", "cannot open file (does it exist?)");
  std::vector<TrainingLogLine> lines;
  std::string text;
  while (std::getline(in, text)) {
    std::optional<double> step = log_field(text, global_step()), rate = log_field(text, current());
    if (!step || !rate || !(*rate > 0)) continue;
    TrainingLogLine l;
    l.iteration = static_cast<int>(*step);
    l.step_s = global_batch / *rate;
    l.global_batch = global_batch;
    l.covers = 1;  // the rate is the step's that ends at the line, not the interval's
    lines.push_back(l);
  }
  if (lines.empty())
    throw InputError(path, 0, "",
                     "no throughput lines: DeepSpeed's throughput timer prints 'epoch=E/"
                     "micro_step=M/global_step=G, RunningAvgSamplesPerSec=R, CurrSamplesPerSec=C, "
                     "...' every steps_per_print steps");
  return lines;
}

nlohmann::json deepspeed_log_result(const std::string& path, const Plan& plan, int warm_up) {
  int batch = model_split(plan).global_batch;
  nlohmann::json j =
      training_log_result(read_deepspeed_log(path, batch), path, plan, warm_up, "deepspeed");
  std::ifstream in(path);
  std::string text;
  std::optional<double> last;
  while (std::getline(in, text))
    if (auto r = log_field(text, running())) last = r;
  if (last) j["log"]["running_average_samples_per_s"] = *last;
  return j;
}

}  // namespace scaleout::core

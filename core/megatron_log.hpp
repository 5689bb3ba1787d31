// Megatron-LM's training log as a measured result: its iteration lines (training_log's
// " iteration N/ M | ... | elapsed time per iteration (ms): T | ... | global batch size: B | ...")
// give the time of each logged interval; the first intervals (warm-up: compilation, allocator,
// the data loader filling) are dropped and said so.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/plan.hpp"

namespace scaleout::core {

struct MegatronLogLine {
  int iteration = 0;
  double step_s = 0;     // the interval's mean iteration (elapsed time per iteration)
  int global_batch = 0;  // 0: the line does not say
  int skipped = 0;       // iterations skipped in the interval (loss scale overflow)
};

// The iteration lines of the file, in order. Throws InputError naming the file for one that cannot
// be read or has no iteration line with its elapsed time.
std::vector<MegatronLogLine> read_megatron_log(const std::string& path);

// The measured result of `plan` from the log's lines after the first `warm_up`: `step_time_s` (the
// intervals' mean iteration, weighted by the iterations each covers), `throughput_samples_per_s`
// (the global batch the log gives, else the plan's, over it), `steps` (one per logged line) and
// the plan's stamp; `log` says what was kept and dropped. Throws InputError when no line is left.
nlohmann::json megatron_log_result(const std::string& path, const Plan& plan, int warm_up);

}  // namespace scaleout::core

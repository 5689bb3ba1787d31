// DeepSpeed's training log as a measured result: its throughput timer's lines ("epoch=E/
// micro_step=M/global_step=G, RunningAvgSamplesPerSec=R, CurrSamplesPerSec=C, MemAllocated=...",
// every steps_per_print global steps) give the samples/s of the step that ends at each; the
// global batch (train_batch_size, which the timer divides) is the plan's.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/formats/training_log.hpp"
#include "core/plan/plan.hpp"

namespace scaleout::core {

// The throughput lines of the file, in order, each one iteration of `global_batch` sequences at
// its CurrSamplesPerSec. Throws InputError naming the file for one that cannot be read or has
// none.
std::vector<TrainingLogLine> read_deepspeed_log(const std::string& path, int global_batch);

// The measured result of `plan` from the log's lines (core/formats/training_log.hpp); `log` also
// gives the last line's RunningAvgSamplesPerSec (DeepSpeed's own average since its second step).
nlohmann::json deepspeed_log_result(const std::string& path, const Plan& plan, int warm_up);

}  // namespace scaleout::core

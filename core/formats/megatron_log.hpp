// Megatron-LM's training log as a measured result: its iteration lines (training_log's
// " iteration N/ M | ... | elapsed time per iteration (ms): T | ... | global batch size: B | ...")
// give the time of each logged interval; the first intervals (warm-up: compilation, allocator,
// the data loader filling) are dropped and said so.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/formats/training_log.hpp"
#include "core/plan/plan.hpp"

namespace scaleout::core {

// The iteration lines of the file, in order. Throws InputError naming the file for one that cannot
// be read or has no iteration line with its elapsed time.
std::vector<TrainingLogLine> read_megatron_log(const std::string& path);

// The measured result of `plan` from the log's lines (core/formats/training_log.hpp).
nlohmann::json megatron_log_result(const std::string& path, const Plan& plan, int warm_up);

}  // namespace scaleout::core

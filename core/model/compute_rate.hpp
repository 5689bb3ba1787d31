// Where a worker's compute time comes from. Three figures can set it, in this order:
// 1. the model's measured throughput for the plan's device (workload.measured_throughput, keyed by
//    the topology's device.name, exact match): time per sample = 1 / throughput;
// 2. the plan's efficiency override (training.efficiency): FLOPs / (efficiency x device peak);
// 3. the model's efficiency (workload.efficiency) when written: the same with it;
// 4. for a transformer on a device with its figures (a preset), the device's compute model
//    (core/model/device_compute.hpp); else workload.efficiency's default, 0.4.
// A measured entry for another device is never used for this one (no name guessing): the result
// says so in a warning. Every engine charges compute as effective FLOPs (time = FLOPs / peak), so
// a measurement is turned into the efficiency it implies.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/plan/plan.hpp"

namespace scaleout::core {

// The plan's device's measured samples/s, when the model lists its name.
std::optional<double> measured_throughput(const Plan& plan);

// The share of the device's peak at which the model's flops_per_sample run: what the step model
// divides FLOPs by. For a measurement: flops_per_sample x throughput / peak (so that the batch
// takes batch / throughput seconds).
double compute_efficiency(const Plan& plan);

// What the result should say about the compute figures: one set another aside, or a measurement
// for the device is missing.
std::vector<std::string> compute_warnings(const Plan& plan);

}  // namespace scaleout::core

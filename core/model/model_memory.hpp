// Memory one device needs to train a model-parallel plan, per pipeline stage: parameters,
// gradients and optimizer states (mixed-precision Adam, sharded as ZeRO's stages say), and the
// activations of the micro-batches its schedule keeps in flight. Used by every engine, the
// planner and the GUI; a plan whose worst stage exceeds the device's memory is refused.
#pragma once

#include <string>

#include "core/parallel/model_split.hpp"
#include "core/plan/plan.hpp"

namespace scaleout::core {

// Bytes per parameter before ZeRO (Rajbhandari et al. 2020): 16-bit weights (2) and gradients
// (2), and Adam's fp32 master weights, momentum and variance (12).
inline constexpr double kWeightBytes = 2, kGradientBytes = 2, kOptimizerBytes = 12;

struct MemoryBreakdown {
  int stage = 0;
  double parameters = 0;  // bytes on one device of this stage
  double gradients = 0;
  double optimizer = 0;
  double activations = 0;
  double total = 0;
  double capacity = 0;  // the device's memory (0: not given)
};

// Parameters one device of `stage` holds (before ZeRO-3 shards them): its layers split over the
// tensor group, and on the first stage the embeddings, on the last the output layer (which shares
// the word embedding, so Megatron keeps a copy there). REQUIRES: a validated transformer plan;
// `s` is its model_split(plan) (the overloads below without one work it out).
double stage_parameters(const Plan& plan, const ModelSplit& s, int stage);
// Of those, the routed experts' (the device's experts / parallelism.expert of each of the stage's
// MoE layers): the part that the experts' own data group (data / expert ranks) exchanges and
// shards.
double stage_expert_parameters(const Plan& plan, const ModelSplit& s, int stage);

MemoryBreakdown stage_memory(const Plan& plan, int stage);
MemoryBreakdown stage_memory(const Plan& plan, const ModelSplit& s, int stage);
// The stage needing the most memory (the first of equals).
MemoryBreakdown worst_stage_memory(const Plan& plan);
MemoryBreakdown worst_stage_memory(const Plan& plan, const ModelSplit& s);

// Empty when the worst stage fits the device's memory (or no memory is given), else a sentence
// naming the stage and each term against the capacity.
std::string does_not_fit(const Plan& plan);
// Throws InputError (at device.memory) with does_not_fit's sentence when it is not empty.
void check_memory_fits(const Plan& plan);

// A data-parallel plan (every device holds the whole model; the workload gives no layer shapes, so
// activations are not counted). Refused when the weights and gradients alone, at the plan's
// gradient precision, exceed the device's memory: no optimizer needs less. Empty when they fit or
// no memory is given.
std::string data_parallel_does_not_fit(const Plan& plan);
// A warning when mixed-precision Adam's 16 bytes per parameter would not fit (plain SGD might).
std::string data_parallel_memory_warning(const Plan& plan);

}  // namespace scaleout::core

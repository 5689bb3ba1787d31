#include "core/model/model_memory.hpp"

#include <cstdio>
#include <vector>

#include "core/model/transformer.hpp"
#include "core/parallel/model_split.hpp"
#include "core/parallel/pipeline_schedule.hpp"
#include "core/plan/input_error.hpp"

namespace scaleout::core {

namespace {

std::string gigabytes(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GB", bytes / 1e9);
  return buf;
}

}  // namespace

double stage_expert_parameters(const Plan& plan, const ModelSplit& s, int stage) {
  const TransformerShape& t = *plan.workload.transformer;
  int expert = parallelism_of(plan).expert;
  // (DualPipe's stage holds its mirror's layers too: stage_moe_layers counts both chunks.)
  return stage_moe_layers(s, stage) * moe_layer_expert_parameters(t) / s.tensor / expert;
}

double stage_parameters(const Plan& plan, const ModelSplit& s, int stage) {
  const TransformerShape& t = *plan.workload.transformer;
  double tp = s.tensor;
  double words = static_cast<double>(t.vocabulary) * t.hidden / tp;  // vocabulary-parallel
  int moe = stage_moe_layers(s, stage);
  double params =
      ((stage_layers(s, stage) - moe) * dense_layer_parameters(t) + moe * moe_layer_parameters(t)) /
      tp;
  if (t.latent)  // duplicated on every device of the tensor group
    params += stage_layers(s, stage) * latent_down_parameters(t) * (1 - 1 / tp);
  int expert = parallelism_of(plan).expert;
  if (expert > 1)  // the experts held elsewhere in the expert-parallel group
    params -= (expert - 1) * stage_expert_parameters(plan, s, stage);
  double positions =
      t.positions == PositionKind::kLearned ? static_cast<double>(t.sequence) * t.hidden : 0;
  bool embedding = false, output = false;  // (DualPipe's first and last stages hold both)
  for (int chunk = 0; chunk < s.chunks; ++chunk) {
    embedding |= s.route().holds_embedding(stage, chunk);
    output |= s.route().holds_output_layer(stage, chunk);
  }
  if (embedding) params += words + positions;
  // The output layer: its own weights when untied; tied, the last of several stages keeps a copy
  // of the word embedding (Megatron-LM), and a stage that holds the embedding too (a single
  // stage, DualPipeV's first) shares it.
  if (output && (!embedding || !t.tied_embeddings)) params += words;
  return params;
}

MemoryBreakdown stage_memory(const Plan& plan, int stage) {
  return stage_memory(plan, model_split(plan), stage);
}

MemoryBreakdown stage_memory(const Plan& plan, const ModelSplit& s, int stage) {
  const Parallelism par = parallelism_of(plan);
  double params = stage_parameters(plan, s, stage);
  // ZeRO shards the dense parameters over the data group and the experts' over theirs.
  double experts = par.expert > 1 ? stage_expert_parameters(plan, s, stage) : 0;
  double dense = params - experts;
  double d = gradient_split(s).data;  // DualPipe shards over each stage's mirror's ranks too
  auto sharded = [&](double bytes, bool on) {
    if (experts == 0) return params * bytes / (on ? d : 1);
    return on ? bytes * (dense / d + experts / (d / par.expert)) : bytes * params;
  };
  MemoryBreakdown m;
  m.stage = stage;
  m.parameters = sharded(kWeightBytes, par.zero >= 3);
  m.gradients = sharded(kGradientBytes, par.zero >= 2);
  m.optimizer = sharded(kOptimizerBytes, par.zero >= 1);
  int in_flight = peak_in_flight(par.schedule, stage, s.pipeline, s.microbatches, s.chunks);
  // Context parallelism keeps 1/context of each sequence's activations on a device.
  m.activations = static_cast<double>(in_flight) * widest_chunk_layers(s, stage) *
                  layer_activation_bytes(*plan.workload.transformer, s.microbatch, s.tensor,
                                         par.sequence_parallel, par.recompute,
                                         plan.training.precision == "fp8", par.recompute_modules) /
                  s.context;
  m.total = m.parameters + m.gradients + m.optimizer + m.activations;
  m.capacity = plan.cluster.device.memory;
  return m;
}

MemoryBreakdown worst_stage_memory(const Plan& plan) {
  return worst_stage_memory(plan, model_split(plan));
}

MemoryBreakdown worst_stage_memory(const Plan& plan, const ModelSplit& s) {
  MemoryBreakdown worst = stage_memory(plan, s, 0);
  // Stage 0 holds the most micro-batches; with stages alike only the last stage's output layer
  // can outweigh that. Stages of other layers (uneven, or other MoE layers) are each looked at.
  std::vector<int> others;
  if (s.pipeline > 1) others.push_back(s.pipeline - 1);
  bool differ = stages_differ(s);
  for (int stage = 1; stage < s.pipeline - 1 && differ; ++stage) others.push_back(stage);
  for (int stage : others) {
    MemoryBreakdown m = stage_memory(plan, s, stage);
    if (m.total > worst.total) worst = m;
  }
  return worst;
}

std::string does_not_fit(const Plan& plan) {
  MemoryBreakdown m = worst_stage_memory(plan);
  if (m.capacity <= 0 || m.total <= m.capacity) return "";
  return "does not fit: a device of pipeline stage " + std::to_string(m.stage) + " needs " +
         gigabytes(m.total) + " (parameters " + gigabytes(m.parameters) + ", gradients " +
         gigabytes(m.gradients) + ", optimizer states " + gigabytes(m.optimizer) +
         ", activations " + gigabytes(m.activations) + ") where the " + plan.cluster.device.name +
         " has " + gigabytes(m.capacity);
}

void check_memory_fits(const Plan& plan) {
  std::string why = does_not_fit(plan);
  if (why.empty()) return;
  throw InputError(plan.cluster.file.empty() ? plan.file : plan.cluster.file,
                   plan.cluster.device.memory_line, "device.memory", why);
}

namespace {

// Weights and gradients at the gradient precision: the least any optimizer keeps per parameter.
// Weights and gradients, and the compressor's error-feedback residuals (fp32: a worker's own, and
// for int8 and onebit its owned part's) when it keeps them.
double least_bytes_per_parameter(const Plan& plan) {
  double bytes = 2.0 * plan.training.gradient_bytes_per_element;
  const Compression& c = plan.training.compression;
  if (c.on() && c.error_feedback) {
    bool owns = !c.sparse() && !c.gathered();  // an owner keeps its part's residual
    bytes += 4.0 + (owns ? 4.0 / plan.training.workers : 0.0);
  }
  return bytes;
}

constexpr double kAdamBytesPerParameter = kWeightBytes + kGradientBytes + kOptimizerBytes;

}  // namespace

std::string data_parallel_does_not_fit(const Plan& plan) {
  double capacity = plan.cluster.device.memory;
  double least = plan.workload.parameters * least_bytes_per_parameter(plan);
  if (plan.parallelism || capacity <= 0 || least <= capacity) return "";
  return "does not fit: data parallelism keeps the whole model on every device, and its " +
         gigabytes(least) + " of weights and gradients alone (" + plan.training.gradient_precision +
         (plan.training.compression.on() && plan.training.compression.error_feedback
              ? ", with the compressor's error feedback"
              : "") +
         ", before optimizer states and activations) exceed the " + plan.cluster.device.name +
         "'s " + gigabytes(capacity) +
         ": split the model (parallelism: tensor, pipeline, zero; docs/model-parallelism.md)";
}

std::string data_parallel_memory_warning(const Plan& plan) {
  double capacity = plan.cluster.device.memory;
  double adam = plan.workload.parameters * kAdamBytesPerParameter;
  if (plan.parallelism || capacity <= 0 || adam <= capacity) return "";
  const std::string& file = plan.cluster.file.empty() ? plan.file : plan.cluster.file;
  return file + ":" + std::to_string(plan.cluster.device.memory_line) +
         ": device.memory: the model's parameters, gradients and Adam's states take " +
         gigabytes(adam) + " (16 bytes a parameter, before activations), more than the " +
         plan.cluster.device.name + "'s " + gigabytes(capacity) +
         ": with Adam it does not fit; the prediction assumes an optimizer that does";
}

}  // namespace scaleout::core

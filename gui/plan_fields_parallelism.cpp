// The fields of a model-parallel split (`parallelism:`), each edited as the same edit of the
// plan's YAML; they apply to transformer workloads, whose layers the split divides.
#include "core/parallel/pipeline_schedule.hpp"
#include "gui/plan_fields.hpp"
#include "gui/plan_yaml_edit.hpp"

namespace scaleout::gui {

namespace {

using core::Plan;

const core::Parallelism& split_of(const Plan& p) {
  static const core::Parallelism none;  // data parallelism: every default
  return p.parallelism ? *p.parallelism : none;
}

// parallelism.<knob>, shown as `get` gives it; an empty text leaves it at the loader's default.
PlanField split_field(const std::string& knob, std::string label, PlanField::Kind kind,
                      std::vector<std::string> choices,
                      std::function<std::string(const core::Parallelism&)> get, std::string hint) {
  PlanField f = yaml_field(
      "parallelism." + knob, std::move(label), kind, std::move(choices),
      [get](const WhatIf& w) { return get(split_of(w.plan)); },
      [knob](YAML::Node& root, const Plan&, const std::string& text) {
        set_or_remove(yaml_at(root, {"parallelism"}), knob, text);
      });
  f.why_off = off_unless([](const Plan& p) { return p.workload.transformer.has_value(); },
                         "splits a transformer's layers: pick a model with transformer: "
                         "dimensions (models/gpt-7.5b.yaml, models/gpt3-175b.yaml)");
  f.hint = std::move(hint);
  return f;
}

std::string number(int n) { return std::to_string(n); }

// `f` applies only while `applies` holds too (else it is shown disabled, `why` as its tooltip).
PlanField only_when(PlanField f, std::function<bool(const core::Parallelism&)> applies,
                    std::string why) {
  FieldGetter transformer = f.why_off;
  FieldGetter own =
      off_unless([applies](const Plan& p) { return applies(split_of(p)); }, std::move(why));
  f.why_off = [transformer, own](const WhatIf& w) {
    std::string off = transformer(w);
    return off.empty() ? own(w) : off;
  };
  return f;
}

// The pipeline's schedule, its chunks and what they hold.
void add_pipeline_fields(std::vector<PlanField>& f) {
  using Kind = PlanField::Kind;
  using P = core::Parallelism;
  f.push_back(split_field(
      "schedule", "schedule", Kind::kChoice,
      {"gpipe", "1f1b", "interleaved", "zero_bubble", "dualpipev", "dualpipe"},
      [](const P& p) { return std::string(core::schedule_name(p.schedule)); },
      "the pipeline's order of forward and backward passes"));
  f.push_back(only_when(
      split_field(
          "virtual_stages", "virtual stages", Kind::kText, {},
          [](const P& p) { return number(p.virtual_stages); },
          "model chunks per stage (interleaved only)"),
      [](const P& p) { return p.schedule == core::PipelineScheduleKind::kInterleaved; },
      "applies to schedule interleaved"));
  auto counted = [&f](const char* key, const char* label, bool P::*flag, const char* tip) {
    f.push_back(only_when(
        split_field(
            key, label, Kind::kBool, {},
            [flag](const P& p) { return std::string(p.*flag ? "true" : "false"); }, tip),
        [](const P& p) { return p.pipeline > 1; }, "applies to pipeline 2 or more"));
  };
  counted("account_for_embedding_in_pipeline_split", "embedding as a layer", &P::embedding_in_split,
          "Megatron-Core's --account-for-embedding-in-pipeline-split: the first chunk holds the "
          "embedding in a layer's place");
  counted("account_for_loss_in_pipeline_split", "loss as a layer", &P::loss_in_split,
          "Megatron-Core's --account-for-loss-in-pipeline-split: the last chunk holds the output "
          "layer and the loss in a layer's place");
}

// Sequence parallelism, recomputation, ZeRO and Megatron-Core's overlaps.
void add_memory_and_overlap_fields(std::vector<PlanField>& f) {
  using Kind = PlanField::Kind;
  using P = core::Parallelism;
  f.push_back(split_field(
      "sequence_parallel", "sequence parallel", Kind::kBool, {},
      [](const P& p) { return std::string(p.sequence_parallel ? "true" : "false"); },
      "tensor all-reduces become reduce-scatter + all-gather"));
  f.push_back(split_field(
      "recompute", "recompute", Kind::kChoice, {"none", "selective", "full"},
      [](const P& p) { return std::string(core::recompute_name(p.recompute)); },
      "activations recomputed in the backward pass instead of kept"));
  f.push_back(split_field(
      "zero", "ZeRO stage", Kind::kChoice, {"0", "1", "2", "3"},
      [](const P& p) { return number(p.zero); },
      "optimizer states (1), + gradients (2), + parameters (3) sharded over "
      "the data-parallel group"));
  f.push_back(split_field(
      "overlap_grad_reduce", "overlap gradient reduce", Kind::kBool, {},
      [](const P& p) { return std::string(p.overlap_grad_reduce ? "true" : "false"); },
      "Megatron-Core's --overlap-grad-reduce: the gradient exchanged in buckets during the last "
      "micro-batch's backward (ZeRO 0 or 1)"));
  f.push_back(split_field(
      "overlap_param_gather", "overlap parameter gather", Kind::kBool, {},
      [](const P& p) { return std::string(p.overlap_param_gather ? "true" : "false"); },
      "Megatron-Core's --overlap-param-gather: the updated parameters gathered in buckets during "
      "the next iteration's first forward (ZeRO 1, with the gradient reduce overlapped)"));
  f.push_back(split_field(
      "tp_comm_overlap", "overlap tensor collectives", Kind::kBool, {},
      [](const P& p) { return std::string(p.tp_comm_overlap ? "true" : "false"); },
      "Megatron-Core's --tp-comm-overlap: a layer's tensor collectives beside its products "
      "(needs sequence parallel)"));
}

}  // namespace

void add_parallelism_fields(std::vector<PlanField>& f) {
  using Kind = PlanField::Kind;
  using P = core::Parallelism;
  f.push_back(split_field(
      "tensor", "tensor", Kind::kText, {}, [](const P& p) { return number(p.tensor); },
      "devices each layer's matrices are split over (Megatron)"));
  f.push_back(split_field(
      "pipeline", "pipeline stages", Kind::kText, {}, [](const P& p) { return number(p.pipeline); },
      "stages the layers are split into, evenly"));
  f.push_back(split_field(
      "context", "context", Kind::kText, {}, [](const P& p) { return number(p.context); },
      "devices each sequence is split over; the attention exchanges keys and values among them"));
  f.push_back(only_when(
      split_field(
          "context_exchange", "context exchange", Kind::kChoice, {"ring", "allgather"},
          [](const P& p) {
            return std::string(p.context_exchange == core::ContextExchange::kRing ? "ring"
                                                                                  : "allgather");
          },
          "ring attention (blocks passed beside the attention) or all-gathered first (Llama 3's)"),
      [](const P& p) { return p.context > 1; }, "applies to context 2 or more"));
  f.push_back(split_field(
      "expert", "expert", Kind::kText, {}, [](const P& p) { return number(p.expert); },
      "devices each MoE layer's experts are shared out over; tokens reach them by all-to-all"));
  f.push_back(only_when(
      split_field(
          "expert_alltoall", "expert all-to-all", Kind::kChoice,
          {"pairwise", "hierarchical", "deduplicated"},
          [](const P& p) { return std::string(core::expert_alltoall_name(p.expert_alltoall)); },
          "every member to every other in turn; inside each node first, then one message a "
          "node; or that with each token sent to a node once (DeepEP's)"),
      [](const P& p) { return p.expert > 1; }, "applies to expert 2 or more"));
  f.push_back(only_when(
      split_field(
          "expert_dispatch_precision", "dispatch precision", Kind::kChoice, {"bf16", "fp8"},
          [](const P& p) { return std::string(p.expert_dispatch_fp8 ? "fp8" : "bf16"); },
          "the tokens sent to the experts at 16 bits, or in FP8 with a scale per 128 "
          "(DeepSeek-V3's)"),
      [](const P& p) { return p.expert > 1; }, "applies to expert 2 or more"));
  f.push_back(split_field(
      "microbatch", "micro-batch", Kind::kText, {}, [](const P& p) { return number(p.microbatch); },
      "sequences per micro-batch"));
  add_pipeline_fields(f);
  add_memory_and_overlap_fields(f);
}

}  // namespace scaleout::gui

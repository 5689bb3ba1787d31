#include "core/plan/framework.hpp"

#include <algorithm>

#include "core/parallel/pipeline_schedule.hpp"
#include "core/plan/input_error.hpp"

namespace scaleout::core {

const std::vector<std::string>& framework_names() {
  static const std::vector<std::string> names = {"megatron", "deepspeed", "fsdp", "any"};
  return names;
}

const char* framework_name(Framework framework) {
  return framework_names()[static_cast<std::size_t>(framework)].c_str();
}

Framework framework_named(const std::string& name) {
  const auto& names = framework_names();
  return static_cast<Framework>(std::find(names.begin(), names.end(), name) - names.begin());
}

const char* framework_title(Framework framework) {
  switch (framework) {
    case Framework::kMegatron:
      return "Megatron-LM";
    case Framework::kDeepSpeed:
      return "DeepSpeed";
    case Framework::kFsdp:
      return "PyTorch FSDP";
    case Framework::kAny:
      break;
  }
  return "any framework";
}

namespace {

// Megatron-LM: 1F1B, interleaved 1F1B (--num-layers-per-virtual-pipeline-stage) and its
// distributed optimizer, which shards the optimizer states only (ZeRO-1).
// With experts over a tensor group it needs sequence parallelism (megatron/training/arguments.py:
// "When using MoE and tensor parallelism, sequence parallelism must be used").
FrameworkRefusal megatron(const Parallelism& p, bool experts) {
  if (experts && p.tensor > 1 && !p.sequence_parallel)
    return {"sequence_parallel",
            "Megatron-LM runs a mixture of experts over a tensor group only with sequence "
            "parallelism: write sequence_parallel: true, tensor: 1, or parallelism.framework: any"};
  if (p.zero > 1)
    return {"zero",
            "Megatron-LM shards the optimizer states only (its distributed optimizer, ZeRO-1); "
            "ZeRO-2 and ZeRO-3 are DeepSpeed's and FSDP's: write parallelism.framework: deepspeed "
            "or fsdp"};
  if (p.schedule == PipelineScheduleKind::kGpipe)
    return {"schedule",
            "Megatron-LM runs 1F1B and interleaved 1F1B, not GPipe's forwards-then-backwards: "
            "write parallelism.framework: any to plan GPipe"};
  if (p.schedule == PipelineScheduleKind::kZeroBubble)
    return {"schedule",
            "Megatron-LM runs 1F1B and interleaved 1F1B; the zero-bubble schedule runs in a fork "
            "of it by the schedule's authors, whose arguments are not written here: write "
            "parallelism.framework: any to plan it"};
  if (is_dualpipe(p.schedule))
    return {"schedule",
            "Megatron-LM runs 1F1B and interleaved 1F1B; DualPipe and DualPipeV run in DeepSeek's "
            "own framework (deepseek-ai/DualPipe): write parallelism.framework: any to plan them"};
  return {};
}

// DeepSpeed: ZeRO 0-3; its pipeline engine runs one chunk a stage on its 1F1B TrainSchedule and
// refuses ZeRO-2 and ZeRO-3 (deepspeed/runtime/pipe/engine.py asserts the stage is below 2).
// Context parallelism is Megatron-Core's and PyTorch's; DeepSpeed's sequence parallelism
// (Ulysses) splits the sequence too but exchanges by all-to-all, which is not modelled.
FrameworkRefusal no_context(const Parallelism& p, const char* framework) {
  if (p.context < 2) return {};
  return {"context", std::string(framework) +
                         " splits sequences with DeepSpeed-Ulysses' all-to-alls, which are not "
                         "modelled: context parallelism is Megatron-Core's and PyTorch's "
                         "(framework megatron, fsdp or any)"};
}

FrameworkRefusal deepspeed(const Parallelism& p) {
  if (p.pipeline > 1 && p.zero > 1)
    return {"zero",
            "DeepSpeed's pipeline engine refuses ZeRO-2 and ZeRO-3: ZeRO-0 or 1 with pipeline "
            "stages, or pipeline 1"};
  if (p.schedule != PipelineScheduleKind::kOneFOneB)
    return {"schedule",
            "DeepSpeed's pipeline engine runs its 1F1B TrainSchedule, one chunk a stage: write "
            "schedule: 1f1b, or parallelism.framework: any"};
  return no_context(p, "DeepSpeed");
}

// PyTorch FSDP: NO_SHARD (ZeRO-0), SHARD_GRAD_OP (ZeRO-2), FULL_SHARD (ZeRO-3), with tensor
// parallelism over DTensor and context parallelism (torch.distributed.tensor.experimental's
// context_parallel, as torchtitan runs it: the keys and values all-gathered or passed round a ring,
// the parameters sharded over data x context ranks); no pipeline stages of its own.
FrameworkRefusal fsdp(const Parallelism& p) {
  if (p.pipeline > 1)
    return {"pipeline",
            "FSDP shards over data-parallel ranks and has no pipeline stages: pipeline 1, or "
            "parallelism.framework: any"};
  if (p.zero == 1)
    return {"zero",
            "FSDP's sharding strategies are NO_SHARD (zero: 0), SHARD_GRAD_OP (2) and FULL_SHARD "
            "(3): no ZeRO-1"};
  return {};
}

}  // namespace

void check_framework_runs(const Plan& plan, Framework framework, const std::string& settings) {
  if (!plan.parallelism)
    throw InputError(plan.file, 0, "parallelism",
                     settings + " are a split's: give the plan `parallelism:`");
  const Parallelism& p = *plan.parallelism;
  bool experts = plan.workload.transformer && plan.workload.transformer->moe;
  if (FrameworkRefusal no = framework_refusal(framework, p, experts))
    throw InputError(plan.file, p.line, "parallelism." + no.field, no.reason);
}

FrameworkRefusal framework_refusal(Framework framework, const Parallelism& p, bool experts) {
  switch (framework) {
    case Framework::kMegatron:
      return megatron(p, experts);
    case Framework::kDeepSpeed:
      return deepspeed(p);
    case Framework::kFsdp:
      return fsdp(p);
    case Framework::kAny:
      break;
  }
  return {};
}

}  // namespace scaleout::core

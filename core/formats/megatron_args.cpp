#include "core/formats/megatron_args.hpp"

#include <cstdio>

#include "core/formats/moe_layer_pattern.hpp"
#include "core/parallel/model_split.hpp"
#include "core/plan/framework.hpp"
#include "core/plan/input_error.hpp"

namespace scaleout::core {

namespace {

using Args = std::vector<std::string>;

void add(Args& out, const std::string& flag, long value) {
  out.push_back(flag);
  out.push_back(std::to_string(value));
}

// Megatron-Core's mixture-of-experts flags; every expert on each device (expert parallelism 1,
// its default), the experts' products grouped as the compute model times them.
void moe_arguments(const TransformerShape& t, Args& out) {
  const MoeShape& m = *t.moe;
  add(out, "--num-experts", m.experts);
  add(out, "--moe-router-topk", m.top_k);
  add(out, "--moe-ffn-hidden-size", m.expert_ffn_hidden);
  if (m.shared_experts > 0) add(out, "--moe-shared-expert-intermediate-size", m.shared_ffn_hidden);
  if (m.groups > 0) {
    add(out, "--moe-router-num-groups", m.groups);
    add(out, "--moe-router-group-topk", m.group_top_k);
  }
  if (m.every > 1 || m.first_dense > 0) {
    out.push_back("--moe-layer-freq");
    out.push_back(moe_layer_freq_text(t));
  }
  if (m.capacity_factor > 0) {
    char factor[32];
    std::snprintf(factor, sizeof factor, "%g", m.capacity_factor);
    out.push_back("--moe-expert-capacity-factor");
    out.push_back(factor);
    out.push_back("--moe-pad-expert-input-to-capacity");
  }
  out.push_back("--moe-grouped-gemm");
}

// Megatron-Core's multi-latent attention (--multi-latent-attention and its widths).
void latent_arguments(const LatentAttention& a, Args& out) {
  out.push_back("--multi-latent-attention");
  if (a.q_rank > 0) add(out, "--q-lora-rank", a.q_rank);
  add(out, "--kv-lora-rank", a.kv_rank);
  add(out, "--qk-head-dim", a.nope_dim);
  add(out, "--qk-pos-emb-head-dim", a.rope_dim);
  add(out, "--v-head-dim", a.value_dim);
}

void model_arguments(const Plan& plan, Args& out) {
  const TransformerShape& t = *plan.workload.transformer;
  if (t.positions == PositionKind::kAlibi)
    throw InputError(
        plan.file, 0, "workload.transformer.positions",
        "Megatron-LM has no ALiBi positions (BLOOM's Megatron-DeepSpeed fork has): its "
        "arguments would describe another model");
  add(out, "--num-layers", t.layers);
  add(out, "--hidden-size", t.hidden);
  add(out, "--num-attention-heads", t.heads);
  add(out, "--ffn-hidden-size", t.ffn_hidden);
  if (t.head_dim > 0) add(out, "--kv-channels", t.head_dim);
  if (t.kv_heads != t.heads) {
    out.push_back("--group-query-attention");
    add(out, "--num-query-groups", t.kv_heads);
  }
  add(out, "--seq-length", t.sequence);
  add(out, "--vocab-size", t.vocabulary);  // the tokenizer's, before Megatron-LM pads it
  add(out, "--max-position-embeddings", t.sequence);
  if (t.mlp == MlpKind::kSwiglu) out.push_back("--swiglu");
  if (t.positions == PositionKind::kRotary) {
    out.push_back("--position-embedding-type");
    out.push_back("rope");
  }
  if (!t.tied_embeddings) out.push_back("--untie-embeddings-and-output-weights");
  if (t.attention == AttentionKind::kFlash) out.push_back("--use-flash-attn");
  if (t.latent) latent_arguments(*t.latent, out);
  if (t.moe) moe_arguments(t, out);
}

void split_arguments(const Plan& plan, const ModelSplit& s, Args& out) {
  const Parallelism& p = *plan.parallelism;
  add(out, "--tensor-model-parallel-size", s.tensor);
  add(out, "--pipeline-model-parallel-size", s.pipeline);
  if (p.schedule == PipelineScheduleKind::kInterleaved)
    add(out, "--num-layers-per-virtual-pipeline-stage", s.layers_per_chunk);
  if (p.sequence_parallel) out.push_back("--sequence-parallel");
  if (p.recompute == Recompute::kSelective) {
    out.push_back("--recompute-granularity");
    out.push_back("selective");
    std::vector<std::string> modules = recompute_module_names(p.recompute_modules);
    if (modules != std::vector<std::string>{"core_attn"}) {
      out.push_back("--recompute-modules");
      out.insert(out.end(), modules.begin(), modules.end());
    }
  } else if (p.recompute == Recompute::kFull) {  // every layer's input kept, the rest recomputed
    out.insert(out.end(), {"--recompute-granularity", "full", "--recompute-method", "uniform"});
    add(out, "--recompute-num-layers", 1);
  }
  if (p.zero == 1) out.push_back("--use-distributed-optimizer");
  if (p.overlap_grad_reduce) out.push_back("--overlap-grad-reduce");
  if (p.overlap_param_gather) out.push_back("--overlap-param-gather");
  if (p.tp_comm_overlap) out.push_back("--tp-comm-overlap");
  if (p.bucket_size > 0) add(out, "--ddp-bucket-size", static_cast<long>(p.bucket_size));
  if (p.expert > 1) add(out, "--expert-model-parallel-size", p.expert);
  if (p.context > 1) {
    add(out, "--context-parallel-size", p.context);
    out.push_back("--cp-comm-type");
    out.push_back(p.context_exchange == ContextExchange::kRing ? "p2p" : "all_gather");
  }
  if (p.first_stage_layers > 0)
    add(out, "--decoder-first-pipeline-num-layers", p.first_stage_layers);
  if (p.last_stage_layers > 0) add(out, "--decoder-last-pipeline-num-layers", p.last_stage_layers);
  if (p.embedding_in_split) out.push_back("--account-for-embedding-in-pipeline-split");
  if (p.loss_in_split) out.push_back("--account-for-loss-in-pipeline-split");
  add(out, "--micro-batch-size", s.microbatch);
  add(out, "--global-batch-size", s.global_batch);
}

}  // namespace

std::vector<std::string> megatron_arguments(const Plan& plan) {
  check_framework_runs(plan, Framework::kMegatron, "Megatron-LM's arguments");
  Args out;
  model_arguments(plan, out);
  split_arguments(plan, model_split(plan), out);
  std::string precision = plan.training.precision.empty() ? "bf16" : plan.training.precision;
  if (precision == "bf16" || precision == "fp16") out.push_back("--" + precision);
  if (precision == "fp8")  // Transformer Engine's fp8 products beside bf16 (Megatron-Core)
    out.insert(out.end(), {"--bf16", "--fp8-format", "hybrid"});
  // Megatron-LM reduces bf16 runs' gradients in fp32 and fp16 runs' in fp16 unless told.
  const std::string& gradients = plan.training.gradient_precision;
  if ((precision == "bf16" || precision == "fp8") && gradients == "bf16")
    out.push_back("--grad-reduce-in-bf16");
  if (precision == "fp16" && gradients == "fp32")
    out.push_back("--accumulate-allreduce-grads-in-fp32");
  return out;
}

}  // namespace scaleout::core

#include "core/results/model_parallel_result.hpp"

namespace scaleout::core {

using nlohmann::json;

void add_model_parallel_keys(json& j, const ModelParallelOutcome& m) {
  j["parallelism"] = {{"tensor", m.tensor},
                      {"pipeline", m.pipeline},
                      {"data", m.data},
                      {"microbatch", m.microbatch},
                      {"microbatches", m.microbatches},
                      {"virtual_stages", m.virtual_stages},
                      {"schedule", m.schedule},
                      {"recompute", m.recompute},
                      {"sequence_parallel", m.sequence_parallel},
                      {"zero", m.zero},
                      {"expert", m.expert},
                      {"context", m.context},
                      {"overlap_grad_reduce", m.overlap_grad_reduce},
                      {"overlap_param_gather", m.overlap_param_gather},
                      {"tp_comm_overlap", m.tp_comm_overlap}};
  j["tokens_per_s"] = m.tokens_per_s;
  j["parameters"] = m.parameters;
  j["active_parameters"] = m.active_parameters;
  j["model_flops_per_s_per_device"] = m.model_flops_per_s_per_device;
  j["mfu"] = m.mfu;
  j["megatron_flops_per_s_per_device"] = m.megatron_flops_per_s_per_device;
  json& ph = j["phases"];
  ph["bubble_s"] = m.bubble_s;
  ph["tensor_comm_s"] = m.tensor_comm_s;
  ph["expert_comm_s"] = m.expert_comm_s;
  if (m.expert > 1) {
    j["parallelism"]["expert_alltoall"] = m.expert_alltoall;
    j["parallelism"]["expert_dispatch_precision"] = m.expert_dispatch_precision;
  }
  if (!m.stage_layers.empty()) j["parallelism"]["stage_layers"] = m.stage_layers;
  if (!m.stage_moe_layers.empty()) j["parallelism"]["stage_moe_layers"] = m.stage_moe_layers;
  if (m.context > 1) {
    j["parallelism"]["context_exchange"] = m.context_exchange;
    ph["context_comm_s"] = m.context_comm_s;
  }
  ph["pipeline_comm_s"] = m.pipeline_comm_s;
  ph["data_comm_s"] = m.data_comm_s;
  const MemoryBreakdown& mem = m.memory;
  j["memory_bytes"] = {
      {"stage", mem.stage},         {"parameters", mem.parameters},   {"gradients", mem.gradients},
      {"optimizer", mem.optimizer}, {"activations", mem.activations}, {"total", mem.total},
      {"capacity", mem.capacity}};
}

std::optional<ModelParallelOutcome> model_parallel_from_json(const json& j) {
  if (!j.contains("parallelism")) return std::nullopt;
  const json& p = j.at("parallelism");
  ModelParallelOutcome m;
  m.tensor = p.at("tensor").get<int>();
  m.pipeline = p.at("pipeline").get<int>();
  m.data = p.at("data").get<int>();
  m.microbatch = p.value("microbatch", 1);
  m.microbatches = p.at("microbatches").get<int>();
  m.virtual_stages = p.value("virtual_stages", 1);
  m.stage_layers = p.value("stage_layers", std::vector<int>{});
  m.stage_moe_layers = p.value("stage_moe_layers", std::vector<int>{});
  m.schedule = p.value("schedule", "1f1b");
  m.recompute = p.value("recompute", "none");
  m.sequence_parallel = p.value("sequence_parallel", false);
  m.zero = p.value("zero", 0);
  m.expert = p.value("expert", 1);
  m.context = p.value("context", 1);
  m.context_exchange = p.value("context_exchange", "");
  m.expert_alltoall = p.value("expert_alltoall", "");
  m.expert_dispatch_precision = p.value("expert_dispatch_precision", "");
  m.overlap_grad_reduce = p.value("overlap_grad_reduce", false);
  m.overlap_param_gather = p.value("overlap_param_gather", false);
  m.tp_comm_overlap = p.value("tp_comm_overlap", false);
  m.tokens_per_s = j.value("tokens_per_s", 0.0);
  m.parameters = j.value("parameters", 0.0);
  m.active_parameters = j.value("active_parameters", 0.0);
  m.model_flops_per_s_per_device = j.value("model_flops_per_s_per_device", 0.0);
  m.mfu = j.value("mfu", 0.0);
  m.megatron_flops_per_s_per_device = j.value("megatron_flops_per_s_per_device", 0.0);
  const json& ph = j.at("phases");
  m.bubble_s = ph.value("bubble_s", 0.0);
  m.tensor_comm_s = ph.value("tensor_comm_s", 0.0);
  m.expert_comm_s = ph.value("expert_comm_s", 0.0);
  m.context_comm_s = ph.value("context_comm_s", 0.0);
  m.pipeline_comm_s = ph.value("pipeline_comm_s", 0.0);
  m.data_comm_s = ph.value("data_comm_s", 0.0);
  if (j.contains("memory_bytes")) {
    const json& mem = j.at("memory_bytes");
    m.memory = {mem.value("stage", 0),         mem.value("parameters", 0.0),
                mem.value("gradients", 0.0),   mem.value("optimizer", 0.0),
                mem.value("activations", 0.0), mem.value("total", 0.0),
                mem.value("capacity", 0.0)};
  }
  return m;
}

}  // namespace scaleout::core

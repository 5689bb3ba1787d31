#include "explore/split_search.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "core/model/model_memory.hpp"
#include "core/model/transformer_products.hpp"
#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"

namespace scaleout::sim {

namespace {

std::vector<int> divisors(int n, int at_most) {
  std::vector<int> out;
  for (int d = 1; d <= std::min(n, at_most); ++d)
    if (n % d == 0) out.push_back(d);
  return out;
}

// Tensor degrees: divisors of the heads (and key-value heads) that fit a node, or span whole
// nodes when asked.
std::vector<int> tensor_degrees(const core::Plan& plan, const SplitSearchOptions& o) {
  return core::tensor_degrees(*plan.workload.transformer, plan.cluster.devices_per_node,
                              o.tensor_across_nodes);
}

// Why validation refused a candidate split, for the search's summary.
std::string invalid_split_reason(const core::InputError&) {
  return "not a valid split (schedule or batch)";
}

struct Search {
  const core::Plan& base;
  SplitSearchOptions options;
  SplitSearch out;
  std::unique_ptr<PredictionEngine> engine;  // the closed forms, prepared for one strategy

  // What the written plan runs that the split leaves alone, where the candidate can run it
  // (`written_exchange`: its experts' all-to-all too).
  void as_written(core::Parallelism& p, bool written_exchange) const {
    // The plan's overlap of the gradient reduce, where the framework and the ZeRO stage run it.
    const auto& written = base.parallelism;
    bool megatron =
        out.framework == core::Framework::kMegatron || out.framework == core::Framework::kAny;
    if (written && written->overlap_grad_reduce && megatron && p.zero <= 1) {
      p.overlap_grad_reduce = true;
      p.bucket_size = written->bucket_size;
      p.overlap_param_gather = written->overlap_param_gather && p.zero == 1;
    }
    // And its overlap of the tensor collectives, where Megatron-Core runs it.
    if (written && written->tp_comm_overlap && megatron && p.zero <= 1 && p.tensor > 1 &&
        p.sequence_parallel)
      p.tp_comm_overlap = true;
    // And how it runs what the split leaves alone: its recomputation modules (under selective),
    // its experts' exchange and dispatch precision (with expert parallelism).
    if (written) {
      p.recompute_modules = written->recompute_modules;
      p.expert_dispatch_fp8 = written->expert_dispatch_fp8 && p.expert > 1;
      if (p.expert > 1 && written_exchange) p.expert_alltoall = written->expert_alltoall;
    }
  }

  void consider(core::Parallelism p, bool written_exchange = true) {
    p.framework = out.framework;
    as_written(p, written_exchange);
    if (core::framework_refusal(out.framework, p, base.workload.transformer->moe.has_value())) {
      ++out.dropped[std::string("not run by ") + core::framework_title(out.framework)];
      return;
    }
    core::Plan plan = base;
    plan.parallelism = p;
    try {
      core::validate_plan(plan);
    } catch (const core::InputError& e) {
      // The written two-level all-to-all needs the expert groups in runs on nodes (and the
      // routing groups whole on them): pairwise here.
      std::string why = e.what();
      if (p.expert_alltoall != core::ExpertAllToAll::kPairwise &&
          (why.find("parallelism.expert_alltoall") != std::string::npos ||
           why.find("moe.groups") != std::string::npos)) {
        p.expert_alltoall = core::ExpertAllToAll::kPairwise;
        return consider(p, false);
      }
      ++out.dropped[invalid_split_reason(e)];
      return;
    }
    if (!fits_with_margin(plan)) {
      ++out.dropped["does not fit in the device's memory"];
      return;
    }
    ++out.evaluated;
    core::RunResult r = engine->predict(plan);
    // Faster first (by ranked_step); of equal steps, the one needing less memory.
    auto slower = [](const SplitCandidate& a, const SplitCandidate& b) {
      if (!same_step(a.result, b.result)) return ranked_step(a.result) < ranked_step(b.result);
      return a.result.model_parallel->memory.total < b.result.model_parallel->memory.total;
    };
    SplitCandidate c{plan, std::move(r), ""};
    if (static_cast<int>(out.best.size()) < options.top || slower(c, out.best.back())) {
      out.best.insert(std::upper_bound(out.best.begin(), out.best.end(), c, slower), c);
      if (static_cast<int>(out.best.size()) > options.top) out.best.pop_back();
    }
  }

  bool fits_with_margin(const core::Plan& plan) const {
    core::Plan tighter = plan;
    tighter.cluster.device.memory *= 1 - options.memory_margin;
    return core::does_not_fit(tighter).empty();
  }

  template <typename T>
  static bool allowed(const std::vector<T>& only, T value) {
    return only.empty() || std::find(only.begin(), only.end(), value) != only.end();
  }

  // The schedules (with their virtual stages) tried for one layout's pipeline degree.
  std::vector<std::pair<core::PipelineScheduleKind, int>> schedules(const core::Parallelism& p,
                                                                    int microbatches) const {
    using Kind = core::PipelineScheduleKind;
    const core::TransformerShape& t = *base.workload.transformer;
    int pipeline = p.pipeline;
    // The embedding and the loss, where counted as layers, split with them.
    int units = t.layers + p.embedding_in_split + p.loss_in_split;
    std::vector<std::pair<Kind, int>> out;
    if (allowed(options.schedules, Kind::kOneFOneB)) out.push_back({Kind::kOneFOneB, 1});
    // GPipe and zero bubble only when named.
    for (Kind named : {Kind::kGpipe, Kind::kZeroBubble})
      if (pipeline > 1 && std::find(options.schedules.begin(), options.schedules.end(), named) !=
                              options.schedules.end())
        out.push_back({named, 1});
    // DualPipeV and DualPipe too, when named, where the plan's validation takes them: with even
    // stages, or with the written uneven ones when the plan was written for that schedule (its
    // counts are then the model's first and last chunks').
    bool even = p.first_stage_layers + p.last_stage_layers + units - t.layers == 0;
    Kind written_schedule = base.parallelism ? base.parallelism->schedule : Kind::kOneFOneB;
    for (Kind dual : {Kind::kDualPipeV, Kind::kDualPipe})
      if (pipeline > 1 && (even || written_schedule == dual) && microbatches >= 2 * pipeline &&
          std::find(options.schedules.begin(), options.schedules.end(), dual) !=
              options.schedules.end())
        out.push_back({dual, 1});
    if (pipeline > 1 && microbatches % pipeline == 0 &&
        allowed(options.schedules, Kind::kInterleaved))
      for (int v : divisors(units / pipeline, units))
        if (v > 1 && (options.max_virtual_stages == 0 || v <= options.max_virtual_stages))
          out.push_back({Kind::kInterleaved, v});
    return out;
  }

  // A mixture of experts' expert-parallel degrees over a data-parallel degree of `data`: those
  // dividing both the experts and `data` (and allowed); 1 for a dense model.
  std::vector<int> expert_degrees(int data, int context) const {
    const core::TransformerShape& t = *base.workload.transformer;
    if (!t.moe || context > 1) return {1};  // not modelled together
    std::vector<int> out;
    for (int e : divisors(t.moe->experts, t.moe->experts))
      if (data % e == 0 && allowed(options.experts, e)) out.push_back(e);
    return out;
  }

  // Schedules, recomputation, ZeRO and sequence parallelism for one (t, p, micro-batch).
  void knobs(core::Parallelism p, int data, int microbatches) {
    bool ps = base.strategy.kind == core::StrategyKind::kPs;
    for (auto [kind, v] : schedules(p, microbatches))
      for (auto recompute :
           {core::Recompute::kNone, core::Recompute::kSelective, core::Recompute::kFull})
        for (int zero = 0; zero <= (data > 1 ? (ps || p.context > 1 ? 1 : 3) : 0); ++zero)
          for (bool sp : {false, true}) {
            if ((sp && p.tensor == 1) || !allowed(options.zeros, zero)) continue;
            p.schedule = kind, p.virtual_stages = v, p.recompute = recompute, p.zero = zero;
            p.sequence_parallel = sp;
            consider(p);
          }
  }

  void run() {
    const core::TransformerShape& t = *base.workload.transformer;
    int workers = base.training.workers;
    long global = base.training.global_batch > 0
                      ? base.training.global_batch
                      : static_cast<long>(base.training.batch_per_worker) * workers;
    core::Parallelism written = base.parallelism.value_or(core::Parallelism{});
    // Even stages, and the written uneven ones (Llama 3 405B's 126 layers over 16 stages, as
    // first and last stages of 7 or as 128 chunks with the embedding and the loss counted).
    std::vector<core::Parallelism> layouts;
    for (int pipeline : divisors(t.layers, t.layers)) {
      layouts.emplace_back();
      layouts.back().pipeline = pipeline;
    }
    if (written.first_stage_layers + written.last_stage_layers > 0) {
      layouts.push_back(core::Parallelism{});
      layouts.back().pipeline = written.pipeline;
      layouts.back().first_stage_layers = written.first_stage_layers;
      layouts.back().last_stage_layers = written.last_stage_layers;
    }
    if (written.embedding_in_split || written.loss_in_split) {
      layouts.push_back(core::Parallelism{});
      layouts.back().pipeline = written.pipeline;
      layouts.back().embedding_in_split = written.embedding_in_split;
      layouts.back().loss_in_split = written.loss_in_split;
    }
    for (int tensor : tensor_degrees(base, options))
      for (const core::Parallelism& layout : layouts) {
        int pipeline = layout.pipeline;
        if (!allowed(options.tensors, tensor) || !allowed(options.pipelines, pipeline)) continue;
        if (workers % (static_cast<long>(tensor) * pipeline) != 0) continue;
        int data = workers / (tensor * pipeline);  // context x data ranks
        for (int context : context_degrees(data, written.context)) {
          core::Parallelism p = layout;
          p.tensor = tensor, p.context = context;
          p.context_exchange = written.context_exchange;
          batches(p, data, global);
        }
      }
  }

  // Context degrees over `data` ranks: those asked for, or every one splitting the sequence when
  // the plan splits it (`written`), or the plan's own.
  std::vector<int> context_degrees(int data, int written) const {
    int sequence = base.workload.transformer->sequence;
    if (options.contexts.empty() && written == 1) return {1};
    std::vector<int> out;
    for (int c : divisors(data, data))
      if (sequence % (2 * c) == 0 || c == 1)
        if (options.contexts.empty() || allowed(options.contexts, c)) out.push_back(c);
    return out;
  }

  // Micro-batch sizes and expert degrees for one (tensor, pipeline, context).
  void batches(core::Parallelism p, int data, long global) {
    int replicas = data / p.context;
    if (global % replicas != 0) return;
    long replica_batch = global / replicas;
    for (long mb = 1; mb <= replica_batch; mb *= 2) {
      if (replica_batch % mb != 0) continue;
      p.microbatch = static_cast<int>(mb);
      for (int expert : expert_degrees(data, p.context)) {
        p.expert = expert;
        knobs(p, data, static_cast<int>(replica_batch / mb));
      }
    }
  }
};

}  // namespace

SplitSearch search_splits(const core::Plan& plan, const SplitSearchOptions& options) {
  auto t0 = std::chrono::steady_clock::now();
  if (!plan.workload.transformer)
    throw core::InputError(plan.workload.file, 0, "transformer",
                           "the search splits a transformer: give the workload's dimensions "
                           "(`transformer:` with layers, hidden, heads, sequence, vocabulary)");
  core::Plan base = plan;
  // Thousands of candidates: their goodput in closed form, without sampled runs.
  if (base.reliability) base.reliability->samples = 0;
  if (base.training.global_batch <= 0) {
    int replicas = plan.parallelism ? plan.training.workers /
                                          (plan.parallelism->tensor * plan.parallelism->pipeline *
                                           plan.parallelism->context)
                                    : plan.training.workers;
    base.training.global_batch = plan.training.batch_per_worker * replicas;
  }
  Search search{base, options, {}, make_engine(Engine::kAnalytic)};
  // Every candidate has the base's cluster, workers and strategy: the groups' collective times
  // by size are worked out once for all of them.
  search.engine->prepare(base.cluster, base.training.workers, true);
  search.out.memory_margin = options.memory_margin;
  search.out.framework = options.framework.value_or(plan.parallelism && plan.parallelism->framework
                                                        ? *plan.parallelism->framework
                                                        : core::Framework::kMegatron);
  search.run();
  for (auto& c : search.out.best) c.bottleneck = bottleneck_of(c.plan, c.result);
  search.out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return search.out;
}

double ranked_step(const core::RunResult& r) {
  if (r.reliability && r.reliability->goodput > 0) return r.step_time_s / r.reliability->goodput;
  return r.step_time_s;
}

bool same_step(const core::RunResult& a, const core::RunResult& b) {
  double x = ranked_step(a), y = ranked_step(b);
  return std::abs(x - y) <= 1e-9 * std::max(x, y);
}

std::string bottleneck_of(const core::Plan& plan, const core::RunResult& r) {
  const core::ModelParallelOutcome& m = *r.model_parallel;
  auto share = [&r](double s) { return static_cast<int>(100 * s / r.step_time_s + 0.5); };
  char buf[128];
  double largest = std::max({m.bubble_s, m.tensor_comm_s, m.data_comm_s, m.expert_comm_s});
  if (largest < 0.05 * r.step_time_s) {
    std::snprintf(buf, sizeof buf, "compute: %d%% of the step", share(r.phases.compute_s));
  } else if (largest == m.bubble_s) {
    std::snprintf(buf, sizeof buf, "pipeline bubble %d%% of the step", share(m.bubble_s));
  } else if (largest == m.tensor_comm_s) {
    bool across = m.tensor > plan.cluster.devices_per_node;
    std::snprintf(buf, sizeof buf, "tensor all-reduces %d%% of the step%s", share(m.tensor_comm_s),
                  across ? ", crossing nodes" : "");
  } else if (largest == m.expert_comm_s) {
    std::snprintf(buf, sizeof buf, "expert all-to-alls %d%% of the step", share(m.expert_comm_s));
  } else if (m.zero >= 2) {
    std::snprintf(buf, sizeof buf, "ZeRO-%d's per-layer collectives exposed, %d%% of the step",
                  m.zero, share(m.data_comm_s));
  } else {
    std::snprintf(buf, sizeof buf, "data-parallel exchange exposed, %d%% of the step",
                  share(m.data_comm_s));
  }
  return buf;
}

}  // namespace scaleout::sim

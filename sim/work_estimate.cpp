#include "sim/work_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/model/model_parallel_work.hpp"
#include "core/model/step_model.hpp"
#include "core/parallel/model_split.hpp"
#include "core/plan/input_error.hpp"
#include "core/programs/fusion.hpp"
#include "core/programs/strategies/ps_training.hpp"
#include "core/programs/strategy.hpp"

namespace scaleout::sim {

namespace {

// Messages one rank sends for one bucket, on average over the ranks (a fast run of ring steps is
// one message; a parameter server's replies are counted with the pushes of its workers).
double messages_per_bucket(const core::Plan& plan, Fidelity fidelity, double chunks_per_bucket) {
  using K = core::StrategyKind;
  double n = std::max(1, plan.training.workers);
  double g = std::clamp<double>(plan.cluster.devices_per_node, 1, n);  // ranks in a node
  double nodes = std::ceil(n / g);
  bool step = fidelity == Fidelity::kStep;
  // A ring all-reduce among the nodes' leaders, and halving-doubling among them, per rank.
  double leaders_ring = (step ? 2 * (nodes - 1) : 1) / g;
  double leaders_hd = 2 * std::ceil(std::log2(nodes)) / g;
  double chains = 2 * (g - 1) / g * chunks_per_bucket;  // up a node's chain and down it
  switch (plan.strategy.kind) {
    case K::kRing:
      return step ? 2 * (n - 1) : 1;
    case K::kHierarchicalRing:  // a ring inside the node around a ring between nodes
      return step ? 2 * (g - 1) + 2 * (nodes - 1) : 3;
    case K::kTorus2d:  // rows, columns, rows
      return step ? 4 * std::sqrt(n) : 3;
    case K::kHalvingDoubling:
      return 2 * std::ceil(std::log2(n));
    case K::kTree:  // each chunk once up to the parent and once down from it
      return 2 * chunks_per_bucket;
    case K::kHierarchicalAllreduce:  // chains inside nodes around the leaders' ring
      return chains + leaders_ring;
    case K::kHierarchicalHalvingDoubling:
      return chains + leaders_hd;
    case K::kPs:
      return 2.0 * std::max(1, plan.strategy.ps_servers);  // push and pull, to every shard
  }
  return 1;
}

std::string count(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, x < 1e6 ? "%.0f" : "%.2g", x);
  return buf;
}

// A model-parallel plan: each forward and backward of a chunk sends its output to the next stage
// and runs its tensor all-reduces as one run of ring steps; the data group exchanges once.
WorkEstimate model_parallel_work(const core::Plan& plan, Fidelity fidelity) {
  core::ModelSplit s = core::model_split(plan);
  core::ModelParallelWork work = core::model_parallel_work(plan, s);
  double ops = 2.0 * s.microbatches * s.chunks;  // per rank and step
  double transfers = s.pipeline > 1 ? ops * (s.pipeline - 1) / s.pipeline : 0;
  double allreduces =
      s.layers_per_chunk * (work.tensor_allreduces_forward + work.tensor_allreduces_backward) / 2.0;
  double tensor = s.tensor < 2                  ? 0
                  : fidelity == Fidelity::kStep ? ops * allreduces * 2 * (s.tensor - 1)
                                                : ops;
  double data = s.data < 2 ? 0
                           : messages_per_bucket(core::group_plan(plan, s.data, plan.strategy.kind),
                                                 fidelity, 1);
  WorkEstimate w;
  w.messages = plan.training.workers * static_cast<double>(plan.training.steps) *
               (transfers + tensor + data);
  w.per_step = ops;
  w.knob = "parallelism.microbatch";
  w.line = plan.parallelism->microbatch_line;
  w.advice = "gives " + count(s.microbatches) +
             " micro-batches per replica: simulate fewer (a larger micro-batch or global batch) "
             "or use --engine analytic";
  return w;
}

}  // namespace

WorkEstimate estimate_work(const core::Plan& plan, Fidelity fidelity) {
  if (plan.parallelism) return model_parallel_work(plan, fidelity);
  WorkEstimate w;
  double buckets = core::count_buckets(plan);
  double bytes = plan.workload.parameters * plan.training.gradient_bytes_per_element;
  // Strategies that pipeline a bucket in chunks along trees or chains.
  bool tree = plan.strategy.kind == core::StrategyKind::kTree ||
              plan.strategy.kind == core::StrategyKind::kHierarchicalAllreduce ||
              plan.strategy.kind == core::StrategyKind::kHierarchicalHalvingDoubling;
  double chunks = tree ? std::ceil(bytes / plan.strategy.chunk) + buckets : buckets;
  double ranks = plan.training.workers;
  double steps = plan.training.steps;
  double per_bucket = messages_per_bucket(plan, fidelity, tree ? chunks / buckets : 1);
  bool ps_program = core::uses_ps_training(plan);  // whole gradients, not buckets
  w.messages = ranks * steps * (ps_program ? per_bucket : buckets * per_bucket);
  w.per_step = chunks;
  if (!ps_program && buckets > 4096) {
    w = {w.messages, buckets, core::fusion_size_field(plan), core::fusion_size_line(plan),
         "makes " + count(buckets) + " buckets a step: choose larger buckets"};
  } else if (tree && chunks > 4096) {
    w = {w.messages, chunks, "strategy.chunk", plan.strategy.chunk_line,
         "makes " + count(chunks) + " tree chunks a step: choose a larger chunk"};
  } else if (fidelity == Fidelity::kStep && per_bucket > 64) {
    w = {w.messages, chunks, "--fidelity", 0,
         "step sends every exchange step on its own: use --fidelity fast"};
  } else if (steps > ranks) {
    w = {w.messages, chunks, "training.steps", plan.training.steps_line,
         "is " + count(steps) + ": simulate fewer steps (steps after the first few are alike)"};
  } else {
    w = {w.messages, chunks, "training.workers", plan.training.workers_line,
         "is " + count(plan.training.workers) + ": use --engine analytic at this size"};
  }
  return w;
}

WorkEstimate check_work(const core::Plan& plan, Fidelity fidelity, double max_messages) {
  WorkEstimate w = estimate_work(plan, fidelity);
  if (w.messages <= max_messages) return w;
  throw core::InputError(plan.file, w.line, w.knob,
                         w.advice + " (the simulation would send about " + count(w.messages) +
                             " messages, over the limit of " + count(max_messages) +
                             "; --max-events raises it)");
}

}  // namespace scaleout::sim

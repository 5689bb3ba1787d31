#include "explore/split_plan.hpp"

#include <algorithm>
#include <cstdio>

#include "core/plan/input_error.hpp"
#include "core/reliability/goodput.hpp"
#include "explore/planner.hpp"

namespace scaleout::sim {

namespace {

double best_throughput(const SplitSearch& s) {
  return s.best.empty() ? 0 : s.best.front().result.throughput_samples_per_s;
}

}  // namespace

std::string describe_answer(const SplitPlanAnswer& a, double required) {
  char buf[256];
  if (!a.reachable && a.search.best.empty()) {
    std::snprintf(buf, sizeof buf,
                  "not reachable with at most %d workers (tried %d..%d): no split fits the "
                  "devices' memory and divides the global batch at any count tried",
                  a.tried.back(), a.tried.front(), a.tried.back());
    return buf;
  }
  if (!a.reachable) {
    std::snprintf(buf, sizeof buf,
                  "not reachable with at most %d workers (tried %d..%d): the fastest, %d workers, "
                  "gives %.1f sequences/s of the %.1f asked",
                  a.tried.back(), a.tried.front(), a.tried.back(),
                  a.search.best.front().plan.training.workers, best_throughput(a.search), required);
    return buf;
  }
  const SplitCandidate& c = a.search.best.front();
  const core::ModelParallelOutcome& m = *c.result.model_parallel;
  std::snprintf(buf, sizeof buf,
                "reachable: %d workers, tensor %d x pipeline %d x data %d: %.1f sequences/s "
                "(%.0f tokens/s), MFU %.1f%%",
                a.workers, m.tensor, m.pipeline, m.data, c.result.throughput_samples_per_s,
                m.tokens_per_s, 100 * m.mfu);
  std::string out = buf;
  if (a.cost_per_hour) {
    std::snprintf(buf, sizeof buf, ", %.2f per hour", *a.cost_per_hour);
    out += buf;
  }
  return out + "; bottleneck: " + c.bottleneck;
}

// `plan` with its global batch written out, so that it is held as the workers change.
core::Plan with_global_batch(const core::Plan& plan) {
  core::Plan fixed = plan;
  if (fixed.training.global_batch <= 0) {
    const auto& p = plan.parallelism;
    int replicas = plan.training.workers / (p ? p->tensor * p->pipeline * p->context : 1);
    fixed.training.global_batch = plan.training.batch_per_worker * replicas;
  }
  return fixed;
}

SplitSearch search_at(const core::Plan& plan, int workers, const SplitSearchOptions& options) {
  core::Plan at = plan;
  at.training.workers = workers;
  // The plan's split does not carry over to another size, but its framework still decides which
  // splits are proposed there; its context degree, set by the sequence, and its uneven stages,
  // set by the layers, are kept (the search tries them beside the even ones).
  SplitSearchOptions o = options;
  if (!o.framework && plan.parallelism) o.framework = plan.parallelism->framework;
  at.parallelism.reset();
  const auto& p = plan.parallelism;
  if (p && (p->context > 1 || p->first_stage_layers + p->last_stage_layers > 0 ||
            p->embedding_in_split || p->loss_in_split)) {
    at.parallelism = core::Parallelism{};
    at.parallelism->context = p->context;
    at.parallelism->context_exchange = p->context_exchange;
    at.parallelism->pipeline = p->pipeline;
    at.parallelism->first_stage_layers = p->first_stage_layers;
    at.parallelism->last_stage_layers = p->last_stage_layers;
    at.parallelism->embedding_in_split = p->embedding_in_split;
    at.parallelism->loss_in_split = p->loss_in_split;
  }
  return search_splits(at, o);
}

std::vector<SizeBest> best_split_per_size(const core::Plan& plan, const std::vector<int>& sizes,
                                          const SplitSearchOptions& options) {
  core::Plan fixed = with_global_batch(plan);
  SplitSearchOptions one = options;
  one.top = 1;
  std::vector<SizeBest> out;
  for (int n : sizes) {
    SplitSearch s = search_at(fixed, n, one);
    SizeBest b{n, std::nullopt, s.evaluated};
    if (!s.best.empty()) b.best = std::move(s.best.front());
    out.push_back(std::move(b));
  }
  return out;
}

SplitPlanAnswer smallest_split_cluster(const core::Plan& plan, const SplitPlanRequest& request) {
  if (!(request.sequences_per_s > 0))
    throw core::InputError("", 0, "--target-throughput", "must be greater than zero");
  if (request.max_workers < 1) throw core::InputError("", 0, "--max-workers", "must be at least 1");
  core::Plan fixed = with_global_batch(plan);
  SplitPlanAnswer a;
  // Searches at `n` and remembers it among the counts tried.
  auto search = [&](int n) {
    a.tried.push_back(n);
    return search_at(fixed, n, request.search);
  };
  std::vector<int> sizes = planner_sizes(plan, request.max_workers);  // doublings, whole nodes
  int node = sizes.front();
  SplitSearch fastest;
  int below = 0;  // the last size that fell short
  for (int n : sizes) {
    SplitSearch s = search(n);
    if (best_throughput(s) >= request.sequences_per_s) {
      // The smallest whole-node count above the last size that fell short.
      for (int k = below / node + 1; k * node < n && !a.reachable; ++k) {
        SplitSearch between = search(k * node);
        if (best_throughput(between) >= request.sequences_per_s)
          a.reachable = true, a.workers = k * node, a.search = std::move(between);
      }
      if (!a.reachable) a.reachable = true, a.workers = n, a.search = std::move(s);
      break;
    }
    if (best_throughput(s) > best_throughput(fastest)) fastest = std::move(s);
    below = n;
  }
  if (!a.reachable) a.search = std::move(fastest);
  std::sort(a.tried.begin(), a.tried.end());
  std::optional<double> price = request.price_per_device_hour ? request.price_per_device_hour
                                                              : plan.cluster.price_per_device_hour;
  if (a.reachable && price) a.cost_per_hour = *price * core::paid_devices(plan, a.workers);
  a.message = describe_answer(a, request.sequences_per_s);
  return a;
}

}  // namespace scaleout::sim

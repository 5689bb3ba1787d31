#include "explore/planner.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>

#include "core/model/server_hosts.hpp"
#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"
#include "core/plan/topology.hpp"
#include "core/reliability/goodput.hpp"

namespace scaleout::sim {

namespace {

// Exposed communication below this share of the step counts as hidden behind compute.
constexpr double kComputeBoundShare = 0.1;

void check_request(const PlanRequest& r) {
  auto fail = [](const char* field, const std::string& what) {
    throw core::InputError("", 0, field, what);
  };
  if (r.target.kind == PlanTarget::Kind::kThroughput) {
    if (!(r.target.throughput > 0)) fail("--target-throughput", "must be greater than zero");
  } else {
    if (!(r.target.deadline_s > 0)) fail("--time-to-train", "must be greater than zero");
    if (!(r.target.samples_per_epoch > 0)) fail("--samples-per-epoch", "must be greater than zero");
    if (!(r.target.epochs > 0)) fail("--epochs", "must be greater than zero");
  }
  if (!(r.min_efficiency >= 0 && r.min_efficiency <= 1))
    fail("--min-efficiency", "must be between 0 and 1");
  if (r.max_workers < 1) fail("--max-workers", "must be at least 1");
  if (r.strategies.empty()) fail("--strategies", "name at least one strategy");
  if (r.price_per_device_hour && !(*r.price_per_device_hour >= 0))
    fail("--price", "must not be negative");
}

std::string link_kind(const std::string& name) {
  auto ends_with = [&](const std::string& s) {
    return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
  };
  if (name.find("uplink") != std::string::npos) return "uplink";
  if (ends_with("-nic")) return "nic";
  if (name.find("-dev") != std::string::npos) return "intra_node";
  return "link";
}

std::string percent(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", share * 100);
  return buf;
}

}  // namespace

core::Plan plan_at(const core::Plan& base, core::StrategyKind kind, int workers) {
  core::Plan plan = base;
  plan.strategy.kind = kind;
  if (workers != plan.training.workers) plan.strategy.grid.reset();  // a grid fits one count
  plan.training.workers = workers;
  return plan;
}

Bottleneck find_bottleneck(const PredictionEngine& engine, const core::Plan& plan,
                           const core::RunResult& r) {
  double exposed = r.step_time_s > 0 ? r.phases.exposed_comm_s / r.step_time_s : 0;
  std::string share = " (exposed communication " + percent(exposed) + " of the step)";
  if (exposed <= kComputeBoundShare) return {"compute", "", "compute" + share};
  if (!r.links.empty()) {  // simulated results name their links
    auto busiest = std::max_element(
        r.links.begin(), r.links.end(),
        [](const auto& a, const auto& b) { return a.utilization < b.utilization; });
    std::string kind = link_kind(busiest->name);
    return {
        kind, busiest->name,
        kind + " " + busiest->name + ", " + percent(busiest->utilization) + " utilized" + share};
  }
  // Closed forms name no links: split the exchange into its latency and its bandwidth terms.
  std::optional<double> whole = engine.exchange_time(plan, plan.gradient_bytes());
  if (!whole) return {"communication", "", "communication" + share};
  double latency = engine.exchange_time(plan, 0).value_or(0);
  if (*whole > 0 && latency >= 0.5 * *whole) return {"latency", "", "latency" + share};
  int n = plan.training.workers, per_node = std::min(n, std::max(1, plan.cluster.devices_per_node));
  if (plan.strategy.kind == core::StrategyKind::kPs && n > per_node * plan.strategy.ps_servers)
    return {"server_nic", "", "the parameter servers' NICs" + share};
  if (n <= per_node) return {"intra_node", "", "the links inside a node" + share};
  return {"nic", "", "each node's NIC" + share};
}

std::vector<int> planner_sizes(const core::Plan& base, int max_workers) {
  int start = std::min(std::max(1, base.cluster.devices_per_node), std::max(1, max_workers));
  std::vector<int> sizes;
  for (long n = start; n <= max_workers; n *= 2) sizes.push_back(static_cast<int>(n));
  int whole_nodes = max_workers / start * start;  // the most whole nodes the limit allows
  if (whole_nodes > sizes.back()) sizes.push_back(whole_nodes);
  return sizes;
}

namespace {

struct Candidates {
  std::vector<PlanOption> all;  // every configuration that ran
  int below_efficiency = 0;     // reached the throughput but not the efficiency
};

// Prices and predicts configurations of one base plan on one analytic model, so that the grid of
// doublings and the bisections between them share the topology built once.
class Evaluator {
 public:
  Evaluator(const core::Plan& base, const PlanRequest& request, double required, int max_devices)
      : request_(request),
        required_(required),
        engine_(make_engine(Engine::kAnalytic)),
        price_(request.price_per_device_hour ? request.price_per_device_hour
                                             : base.cluster.price_per_device_hour) {
    engine_->prepare(base.cluster, max_devices, false);
  }

  // The option for `plan`, or none when the strategy cannot run on its layout.
  std::optional<PlanOption> option(const core::Plan& plan) const {
    PlanOption o;
    const core::RunResult* known =
        request_.known ? request_.known(plan.strategy.kind, plan.training.workers) : nullptr;
    try {
      o.result = known ? *known : engine_->predict(plan);
    } catch (const core::InputError&) {
      return std::nullopt;
    }
    o.strategy = plan.strategy.kind;
    o.workers = plan.training.workers;
    o.devices = core::accelerators_needed(plan);  // CPU server hosts hold no accelerators
    double throughput = o.result.throughput_samples_per_s;
    // A long run loses time to failures, checkpoints and restarts: a deadline counts them.
    if (request_.target.kind == PlanTarget::Kind::kTimeToTrain && o.result.reliability)
      throughput *= o.result.reliability->goodput;
    o.effective_throughput = throughput;
    if (request_.target.kind == PlanTarget::Kind::kTimeToTrain && throughput > 0)
      o.train_time_s = request_.target.samples_per_epoch * request_.target.epochs / throughput;
    if (price_) o.cost_per_hour = *price_ * core::paid_devices(plan, o.devices);
    if (price_ && o.train_time_s > 0) o.cost = *o.cost_per_hour * o.train_time_s / 3600;
    o.bottleneck = find_bottleneck(*engine_, plan, o.result);
    return o;
  }

  bool fast_enough(const PlanOption& o) const { return o.effective_throughput >= required_; }
  bool meets(const PlanOption& o) const {
    return fast_enough(o) && o.result.scaling_efficiency >= request_.min_efficiency;
  }

 private:
  const PlanRequest& request_;
  double required_;
  std::unique_ptr<PredictionEngine> engine_;  // the closed forms
  std::optional<double> price_;
};

// `plan_at(base, kind, n)` when it validates (a fixed-size cluster may have fewer devices, servers
// may not fit, ...), else none.
std::optional<core::Plan> valid_plan_at(const core::Plan& base, core::StrategyKind kind, int n) {
  core::Plan plan = plan_at(base, kind, n);
  try {
    core::validate_plan(plan);
  } catch (const core::InputError&) {
    return std::nullopt;
  }
  return plan;
}

// The smallest whole-node count between a doubling that falls short (`below`) and the next one
// that meets the target (`above`), by bisection: throughput grows with the nodes between two
// doublings where the closed forms are monotone. Adds every size it tries to `tried`.
std::optional<PlanOption> bisect_nodes(const Evaluator& e, const core::Plan& base,
                                       core::StrategyKind kind, int node, int below, int above,
                                       std::vector<int>& tried) {
  std::optional<PlanOption> best;
  int lo = below / node, hi = above / node;  // lo falls short, hi meets
  while (hi - lo > 1) {
    int mid = lo + (hi - lo) / 2;
    auto plan = valid_plan_at(base, kind, mid * node);
    auto o = plan ? e.option(*plan) : std::nullopt;
    tried.push_back(mid * node);
    if (o && e.meets(*o)) {
      hi = mid;
      best = std::move(o);
    } else {
      lo = mid;
    }
  }
  return best;
}

// Where a strategy first met the target at a doubling, and the doubling below that fell short.
struct Bracket {
  core::StrategyKind kind;
  int below = 0;     // workers (0: the first size met it)
  int above = 0;     // workers
  int devices = 0;   // at `above`
  int at_least = 0;  // devices of the next whole node above `below`: no answer of it needs fewer
};

// The doublings of every strategy, up to the first that meets the target.
std::vector<Bracket> run_doublings(const Evaluator& e, const std::vector<core::Plan>& plans,
                                   const PlanRequest& request, Candidates& c) {
  std::vector<Bracket> brackets;
  for (auto kind : request.strategies) {
    int below = 0;  // the last doubling of this strategy that ran and fell short
    for (const auto& plan : plans) {
      if (plan.strategy.kind != kind) continue;
      auto o = e.option(plan);
      if (!o) continue;
      if (e.fast_enough(*o) && !e.meets(*o)) ++c.below_efficiency;
      bool met = e.meets(*o);
      int n = o->workers, devices = o->devices;
      c.all.push_back(std::move(*o));
      if (!met) {
        below = n;
        continue;
      }
      brackets.push_back({kind, below, n, devices, 0});
      break;  // the sizes above the first that meets cannot be the smallest
    }
  }
  return brackets;
}

Candidates evaluate(const core::Plan& base, const PlanRequest& request, std::vector<int>& sizes,
                    double required) {
  std::vector<core::Plan> plans;
  int max_devices = 1;
  for (auto kind : request.strategies)
    for (int n : sizes)
      if (auto plan = valid_plan_at(base, kind, n)) {
        max_devices = std::max(max_devices, core::devices_needed(*plan));
        plans.push_back(std::move(*plan));
      }
  Candidates c;
  if (plans.empty()) return c;
  Evaluator e(base, request, required, max_devices);
  int node = sizes.front();
  std::vector<int> tried = sizes;
  std::vector<Bracket> brackets = run_doublings(e, plans, request, c);
  // Only the best and the runner-up (another strategy) are answered: a strategy that needs more
  // devices than two others already reach is not bisected (a PS's bisection at thousands of
  // workers costs a fair share of every flow per size).
  std::vector<int> reach;
  for (auto& b : brackets) {
    reach.push_back(b.devices);
    if (auto at = valid_plan_at(base, b.kind, b.below + node))
      b.at_least = core::accelerators_needed(*at);  // counted as PlanOption::devices is
  }
  std::sort(reach.begin(), reach.end());
  int second = reach.size() > 1 ? reach[1] : INT_MAX;
  for (const auto& b : brackets) {
    if (b.below == 0 || b.at_least > second) continue;
    if (auto between = bisect_nodes(e, base, b.kind, node, b.below, b.above, tried))
      c.all.push_back(std::move(*between));
  }
  std::sort(tried.begin(), tried.end());
  tried.erase(std::unique(tried.begin(), tried.end()), tried.end());
  sizes = tried;
  return c;
}

// `sequence`: tokens a sample of a transformer plan (its rates are said in tokens), else 0.
std::string describe(const PlanOption& o, int sequence) {
  char buf[160];
  double rate = o.result.throughput_samples_per_s * (sequence > 0 ? sequence : 1);
  std::snprintf(buf, sizeof buf, "%s on %d workers (%d devices): %.0f %s/s, efficiency %.0f%%",
                core::strategy_name(o.strategy), o.workers, o.devices, rate,
                sequence > 0 ? "tokens" : "samples", o.result.scaling_efficiency * 100);
  std::string out = buf;
  if (o.result.reliability && o.train_time_s > 0) {
    std::snprintf(buf, sizeof buf, ", %.1f%% goodput", 100 * o.result.reliability->goodput);
    out += buf;
  }
  if (o.train_time_s > 0) {
    std::snprintf(buf, sizeof buf, ", %.2f h", o.train_time_s / 3600);
    out += buf;
  }
  if (o.cost) {
    std::snprintf(buf, sizeof buf, ", cost %.2f", *o.cost);
    out += buf;
  } else if (o.cost_per_hour) {
    std::snprintf(buf, sizeof buf, ", %.2f per hour", *o.cost_per_hour);
    out += buf;
  }
  return out;
}

std::string unreachable_message(const PlanAnswer& a, const Candidates& c, double min_efficiency,
                                int sequence) {
  if (a.sizes.empty() || !a.closest)
    return "not reachable: no configuration could run on this cluster";
  std::string out = "not reachable with at most " + std::to_string(a.sizes.back()) +
                    " workers (tried " + std::to_string(a.sizes.front()) + ".." +
                    std::to_string(a.sizes.back()) +
                    "); bottleneck: " + a.closest->bottleneck.text +
                    "; fastest: " + describe(*a.closest, sequence);
  if (c.below_efficiency > 0)
    out += "; " + std::to_string(c.below_efficiency) +
           " configurations reach the throughput below the minimum efficiency " +
           percent(min_efficiency);
  return out;
}

}  // namespace

double plan_cluster_target(const PlanRequest& request) {
  check_request(request);
  const PlanTarget& t = request.target;
  return t.kind == PlanTarget::Kind::kThroughput ? t.throughput
                                                 : t.samples_per_epoch * t.epochs / t.deadline_s;
}

PlanAnswer plan_cluster(const core::Plan& base, const PlanRequest& request) {
  check_request(request);
  PlanAnswer a;
  // A transformer plan's answer speaks in tokens, as its targets do.
  const int sequence = base.workload.transformer ? base.workload.transformer->sequence : 0;
  a.required_throughput = plan_cluster_target(request);
  a.sizes = planner_sizes(base, request.max_workers);
  Candidates c = evaluate(base, request, a.sizes, a.required_throughput);
  // Fewest devices first; among equals the fastest (a shorter, cheaper run).
  std::stable_sort(c.all.begin(), c.all.end(), [](const PlanOption& x, const PlanOption& y) {
    if (x.devices != y.devices) return x.devices < y.devices;
    return x.effective_throughput > y.effective_throughput;
  });
  for (const auto& o : c.all) {
    bool meets = o.effective_throughput >= a.required_throughput &&
                 o.result.scaling_efficiency >= request.min_efficiency;
    if (!meets) continue;
    if (!a.best) {
      a.best = o;
    } else if (o.strategy != a.best->strategy) {
      a.runner_up = o;
      break;
    }
  }
  a.reachable = a.best.has_value();
  if (a.reachable) {
    a.message = "reachable: " + describe(*a.best, sequence);
    if (a.runner_up) a.message += "; runner-up: " + describe(*a.runner_up, sequence);
    a.message += "; bottleneck: " + a.best->bottleneck.text;
    return a;
  }
  for (const auto& o : c.all)
    if (!a.closest || o.effective_throughput > a.closest->effective_throughput) a.closest = o;
  a.message = unreachable_message(a, c, request.min_efficiency, sequence);
  return a;
}

namespace {

nlohmann::json option_json(const PlanOption& o) {
  nlohmann::json j = {
      {"strategy", core::strategy_name(o.strategy)},
      {"workers", o.workers},
      {"devices", o.devices},
      {"step_time_s", o.result.step_time_s},
      {"throughput_samples_per_s", o.result.throughput_samples_per_s},
      {"scaling_efficiency", o.result.scaling_efficiency},
      {"train_time_s", o.train_time_s},
      {"effective_throughput_samples_per_s", o.effective_throughput},
      {"bottleneck",
       {{"kind", o.bottleneck.kind}, {"link", o.bottleneck.link}, {"text", o.bottleneck.text}}}};
  j["cost_per_hour"] = o.cost_per_hour ? nlohmann::json(*o.cost_per_hour) : nlohmann::json();
  j["cost"] = o.cost ? nlohmann::json(*o.cost) : nlohmann::json();
  return j;
}

nlohmann::json optional_json(const std::optional<PlanOption>& o) {
  return o ? option_json(*o) : nlohmann::json();
}

}  // namespace

nlohmann::json to_json(const PlanAnswer& a) {
  return {{"reachable", a.reachable},
          {"required_throughput_samples_per_s", a.required_throughput},
          {"sizes", a.sizes},
          {"message", a.message},
          {"best", optional_json(a.best)},
          {"runner_up", optional_json(a.runner_up)},
          {"closest", optional_json(a.closest)}};
}

}  // namespace scaleout::sim

// The sizes people train on today, on SimGrid: wall time, CPU time and peak memory of one
// synchronous step of the quickstart plan (ResNet-50, 8-GPU V100 nodes on an InfiniBand switch,
// overlap on) for ring, torus2d and hierarchical_ring at 4,096 to 16,384 ranks (65,536 with
// a larger maximum), a synchronous parameter server (8 shards) at 4,096 to 16,384 workers, and an
// asynchronous one (16 shards, 100 steps per worker), beside the targets and the peers' figures.
// Each simulation runs in its own process; CPU time and peak memory come from wait4().
//
//   build/bench/bench_sim_scale [max_ranks] [max_ps_workers] [async_ps_workers] [async_budget_s]
//   (defaults 16384 16384 4096 300; 0 leaves a part out; the asynchronous PS is stopped after its
//   budget of wall time and reported with the messages it had sent)
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench/measure_child.hpp"
#include "core/plan/plan_loader.hpp"

using namespace scaleout;

namespace {

// The targets for one step on this kind of machine, and what the peer does there.
std::string beside(core::StrategyKind kind, int n) {
  if (kind == core::StrategyKind::kPs)
    return n <= 4096 ? "target < 5 s" : n <= 16384 ? "target < 30 s" : "";
  std::string out = n <= 16384 ? "target < 10 s, 2 GiB" : "target < 60 s, 8 GiB";
  if (kind == core::StrategyKind::kRing && n == 4096) out += "; ASTRA-sim analytical: 93 s, 5.6 GB";
  if (kind == core::StrategyKind::kRing && n > 4096)
    out += "; ASTRA-sim (n^2 from 93 s at 4096): ~" +
           std::to_string(static_cast<int>(93.0 * (n / 4096.0) * (n / 4096.0))) + " s";
  if (n > 9216) out += "; SimAI analytical: reported up to 9,216 GPUs";
  return out;
}

void print(const std::string& label, int n, const bench::Measured& m, const std::string& note) {
  std::printf("%-18s %6d %8.2f %8.2f %9.0f %12.2f %13.5f  %s\n", label.c_str(), n, m.wall_s,
              m.cpu_s, m.peak_mb, 1e6 * m.cpu_s / n, m.result.step_time_s, note.c_str());
  std::fflush(stdout);
}

void measure(core::Plan plan, core::StrategyKind kind, int n) {
  plan.strategy.kind = kind;
  plan.training.workers = n;
  print(core::strategy_name(kind), n, bench::measure_simulation(plan, "fast"), beside(kind, n));
}

// A simulation stopped at its budget: how far it got, and how long the rest would take at the
// average rate so far.
void print_stopped(const std::string& label, int n, const bench::Measured& m) {
  double rate = m.progress.messages / m.wall_s;
  double left = m.progress.estimated_messages - static_cast<double>(m.progress.messages);
  std::printf(
      "%-18s %6d %8.2f %8.2f %9.0f  stopped: %.3g of about %.3g messages sent (%.0f a "
      "second), about %.1f h more at that rate; target < 60 s not met\n",
      label.c_str(), n, m.wall_s, m.cpu_s, m.peak_mb, static_cast<double>(m.progress.messages),
      m.progress.estimated_messages, rate, rate > 0 ? left / rate / 3600 : 0.0);
  std::fflush(stdout);
}

// Asynchronous PS: every worker does 100 steps against 16 shards (each push carries the next pull).
void measure_async_ps(core::Plan plan, int n, double budget_s) {
  plan.strategy.kind = core::StrategyKind::kPs;
  plan.strategy.ps_mode = core::PsMode::kAsync;
  plan.strategy.ps_servers = 16;
  plan.training.workers = n;
  plan.training.steps = 100;
  // 2 x 4,096 x 100 x 16 = 1.3e7 messages: over the simulator's default limit.
  bench::Measured m = bench::measure_simulation(plan, "fast", 1e9, budget_s);
  if (m.stopped) return print_stopped("ps async x16, 100", n, m);
  print("ps async x16, 100", n, m, n <= 4096 ? "target < 60 s" : "");
}

}  // namespace

int main(int argc, char** argv) {
  int max_ranks = argc > 1 ? std::atoi(argv[1]) : 16384;
  int max_ps = argc > 2 ? std::atoi(argv[2]) : 16384;
  int async_ps = argc > 3 ? std::atoi(argv[3]) : 4096;
  double async_budget_s = argc > 4 ? std::atof(argv[4]) : 300;
  core::Plan plan =
      core::load_plan(std::string(SCALEOUT_SOURCE_DIR) + "/experiments/quickstart.yaml");
  plan.training.steps = 1;
  std::printf("one synchronous step of %s, %.1f MB gradient, %s, overlap %s (allocator: %s)\n",
              plan.workload.name.c_str(), plan.gradient_bytes() / 1e6, plan.cluster.name.c_str(),
              plan.training.overlap ? "on" : "off", bench::allocator_name());
  std::printf("%-18s %6s %8s %8s %9s %12s %13s  %s\n", "strategy", "N", "wall s", "cpu s",
              "peak MB", "cpu us/rank", "sim step s", "beside");
  for (auto kind : {core::StrategyKind::kRing, core::StrategyKind::kTorus2d,
                    core::StrategyKind::kHierarchicalRing})
    for (int n = 4096; n <= max_ranks; n *= 2) measure(plan, kind, n);
  for (int n = 4096; n <= max_ps; n *= 2) measure(plan, core::StrategyKind::kPs, n);
  if (async_ps > 0) measure_async_ps(plan, async_ps, async_budget_s);
  return 0;
}

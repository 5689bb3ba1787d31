// Our ring and halving-doubling against Gloo's AllreduceRingChunked and AllreduceHalvingDoubling,
// side by side in one run: busbw of each and the ratio, on loopback and (as root) on the emulated
// 4 x 200 Mb/s cluster. 4 ranks, 4M floats (16 MB), medians over 20 steps (Gloo: 20 runs).
//
//   build/bench/bench_exec_vs_gloo [steps]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/plan/plan_loader.hpp"
#include "core/plan/topology.hpp"
#include "exec/emulated_cluster.hpp"
#include "exec/local_run.hpp"

using namespace scaleout;

namespace {

double median_step(const core::RunResult& r) {
  std::vector<double> t;
  for (const auto& s : r.steps) t.push_back(s.time_s);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void compare(const char* where, core::Plan plan, exec::ExecOptions options) {
  for (auto kind : {core::StrategyKind::kRing, core::StrategyKind::kHalvingDoubling}) {
    plan.strategy.kind = kind;
    core::RunResult r = exec::run_local(plan, options);
    double factor = 2.0 * (r.workers - 1) / r.workers;
    double ours = r.bytes * factor / median_step(r);
    const char* theirs_name =
        kind == core::StrategyKind::kRing ? "gloo_ring_chunked" : "gloo_halving_doubling";
    double theirs = 0;
    for (const auto& b : r.baselines)
      if (b.name == theirs_name) theirs = b.busbw_Bps;
    std::printf("%-10s %-18s %12.2f %-22s %12.2f %8.2f %7ld\n", where, r.strategy.c_str(),
                ours / 1e6, theirs_name, theirs / 1e6, theirs > 0 ? ours / theirs : 0.0, r.wrong);
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int steps = argc > 1 ? std::atoi(argv[1]) : 20;
  std::string root = SCALEOUT_SOURCE_DIR;
  core::Plan plan = core::load_plan(root + "/experiments/quickstart.yaml");
  plan.cluster = core::load_cluster(root + "/topologies/emulated-4x200mbit.yaml");
  plan.workload.parameters = 4e6;
  plan.workload.layers.clear();
  plan.training.workers = 4;
  plan.training.steps = steps;
  plan.training.overlap = false;
  // Gloo's AllreduceRingChunked cuts the buffer into 2 x ranks chunks (2 MB here): ours likewise.
  plan.strategy.chunk = 2e6;
  exec::ExecOptions options;
  options.compute_scale = 0;
  std::printf("%-10s %-18s %12s %-22s %12s %8s %7s\n", "cluster", "ours", "busbw MB/s", "gloo",
              "busbw MB/s", "ratio", "#wrong");
  compare("loopback", plan, options);
  std::string why = exec::emulation_unavailable();
  if (!why.empty()) {
    std::printf("emulated cluster skipped: %s\n", why.c_str());
    return 0;
  }
  exec::EmulatedCluster c = exec::cluster_up(core::Topology::build(plan.cluster, 4));
  options.node_netns = c.node_netns;
  options.node_ip = c.node_ip;
  try {
    compare("emulated", plan, options);
  } catch (...) {
    exec::cluster_down();
    throw;
  }
  exec::cluster_down();
  return 0;
}

// What one executed rank does, in its own process: join the group, run every step (real compute,
// the strategy on real floats, the exact-sum check), time Gloo's own all-reduces, and report.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/plan/plan.hpp"
#include "exec/exec_options.hpp"

namespace scaleout::exec {

struct RankSetup {
  int rank = 0;
  int size = 0;
  std::string store_dir;  // file store for the rendezvous
  std::string hostname = "127.0.0.1";
  std::string netns;  // network namespace to enter first ("" for none)
  // Several NICs per node: this rank's addresses on rails 1, 2, ... and the node of every rank.
  // Transfers between nodes are striped over the rails, as the simulator stripes them.
  std::vector<std::string> rail_hostnames;
  std::vector<int> rank_node;
};

// Runs the rank and hands its report (per step {start, compute_end, end, wrong}, and baselines) to
// `finish`, which is called while the rank's connections are still open: closing them while a peer
// still waits on them would fail that peer. Throws on any failure (the launcher names the rank).
void run_rank(const core::Plan& plan, const ExecOptions& options, const RankSetup& setup,
              const std::function<void(const nlohmann::json&)>& finish);

}  // namespace scaleout::exec

// The plan: plain data describing a cluster, a workload, a strategy and a training regime.
// It knows nothing of how it will run (simulated, analytic or executed). All values are SI.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace scaleout::core {

struct LinkSpec {
  double bandwidth = 0;  // bytes/s
  double latency = 0;    // seconds
};

enum class NetworkKind { kSwitch, kTwoTier, kFatTree, kTorus2d, kExplicit };

struct NetworkSpec {
  NetworkKind kind = NetworkKind::kSwitch;
  int hosts_per_rack = 0;           // two_tier
  LinkSpec uplink;                  // two_tier: each rack switch to the core switch
  int fat_tree_k = 0;               // fat_tree: k-ary fat tree (k even)
  std::array<int, 2> dims{0, 0};    // torus2d: nodes arranged dims[0] x dims[1], wrap-around links
  std::optional<LinkSpec> fabric;   // fat_tree / torus2d: switch-switch or node-node links (default nic)
};

struct ExplicitHost {
  std::string name;
  int devices = 1;
};

struct ExplicitLink {
  std::string a, b;
  LinkSpec link;
  int line = 0;
};

struct DeviceSpec {
  std::string name = "device";
  double flops = 0;  // peak FLOP/s
};

struct Cluster {
  std::string file;  // where it was loaded from ("" when inline in a plan)
  std::string name;
  std::optional<int> nodes;  // nullopt: "auto", as many as the plan needs
  int devices_per_node = 1;
  DeviceSpec device;
  LinkSpec intra_node;  // each device's link to its node's internal switch
  LinkSpec nic;         // each node's link to the network
  NetworkSpec network;
  std::string network_model = "lv08";  // lv08 | cm02 | ib
  // Explicit form (network.kind == kExplicit): hosts, switches and links named by the user.
  std::vector<ExplicitHost> hosts;
  std::vector<std::string> switches;
  std::vector<ExplicitLink> links;
};

struct Layer {
  std::string name;
  double parameters = 0;
  double backward_share = 0;  // share of the backward pass's time
};

struct Workload {
  std::string file;
  std::string name;
  double parameters = 0;        // count
  double flops_per_sample = 0;  // forward + backward
  double efficiency = 0.4;      // achieved share of device peak
  std::vector<Layer> layers;    // backward order; may be empty
};

enum class StrategyKind { kPs, kRing, kTorus2d, kHierarchicalRing, kHalvingDoubling, kTree };

const char* strategy_name(StrategyKind kind);
// Returns nullopt for an unknown name.
std::optional<StrategyKind> parse_strategy_kind(const std::string& name);
const std::vector<std::string>& strategy_names();

enum class PsPlacement { kDedicated, kColocated };
enum class PsMode { kSync, kAsync };

struct Strategy {
  StrategyKind kind = StrategyKind::kRing;
  double chunk = 4.0 * 1024 * 1024;     // bytes: ring-family and tree pipeline chunk
  std::optional<std::array<int, 2>> grid;  // torus2d: X (row length) x Y (rows)
  int ps_servers = 1;
  PsPlacement ps_placement = PsPlacement::kDedicated;
  PsMode ps_mode = PsMode::kSync;
  int replicas_to_aggregate = 0;  // 0: all workers
  int softsync = 0;               // 0: off
  int staleness_bound = -1;       // -1: unbounded
  int line = 0;       // where the strategy was given (for errors found later)
  int grid_line = 0;
};

struct Training {
  int workers = 1;
  int batch_per_worker = 32;
  int steps = 1;
  int gradient_bytes_per_element = 4;  // fp32: 4, fp16/bf16: 2
  std::string gradient_precision = "fp32";
  bool overlap = false;
  double fusion_buffer = 64.0 * 1024 * 1024;  // bytes
  int workers_line = 0;
};

struct Plan {
  std::string file;
  Cluster cluster;
  Workload workload;
  Strategy strategy;
  Training training;

  // Gradient size in bytes exchanged each step.
  double gradient_bytes() const {
    return workload.parameters * training.gradient_bytes_per_element;
  }
};

}  // namespace scaleout::core

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "cli/plan_args.hpp"
#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"
#include "core/plan/topology.hpp"
#include "exec/cluster_state.hpp"
#include "exec/emulated_cluster.hpp"

namespace scaleout::cli {

namespace {

// One `cluster up` or `cluster down` at a time on this machine: both rewrite the state file, and
// two at once would each record only their own objects. The kernel drops the lock with the process.
class ClusterLock {
 public:
  ClusterLock() : path_(exec::ClusterState::path() + ".lock") {
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    held_ = fd_ >= 0 && ::flock(fd_, LOCK_EX | LOCK_NB) == 0;
  }
  ~ClusterLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  ClusterLock(const ClusterLock&) = delete;
  ClusterLock& operator=(const ClusterLock&) = delete;
  // Why this process may not go on ("" when it holds the lock).
  std::string refusal() const {
    if (fd_ < 0) return "cannot open the lock file " + path_;
    if (!held_)
      return "another `scaleout cluster up` or `down` is running (it holds " + path_ + ")";
    return "";
  }

 private:
  std::string path_;
  int fd_ = -1;
  bool held_ = false;
};

}  // namespace

Action add_cluster_command(CLI::App& app) {
  auto topology = std::make_shared<std::string>();
  auto devices = std::make_shared<int>(0);
  CLI::App* cmd = app.add_subcommand(
      "cluster",
      "Build or remove an emulated cluster on this machine (root): namespaces, bridges, tc rate "
      "limits.\n"
      "Example: scaleout cluster up topologies/emulated-4x200mbit.yaml && scaleout cluster down");
  cmd->require_subcommand(1);
  CLI::App* up = cmd->add_subcommand(
      "up", "Build the cluster a topology describes (switch or two_tier network)");
  up->add_option("topology", *topology, "topology YAML file")
      ->required()
      ->transform(bundled_input());
  up->add_option("--devices", *devices, "devices to provide when the topology says nodes: auto")
      ->check(positive_int());
  cmd->add_subcommand("down", "Remove everything the emulated cluster made");
  return [=]() {
    ClusterLock lock;
    if (std::string why = lock.refusal(); !why.empty()) {
      std::fprintf(stderr, "error: %s\n", why.c_str());
      return 1;
    }
    if (cmd->got_subcommand("down")) {
      exec::cluster_down();
      auto left = exec::emulation_leftovers();
      if (!left.empty()) {
        std::fprintf(stderr, "error: could not remove %s\n", left.front().c_str());
        return 1;
      }
      std::printf("emulated cluster removed\n");
      return 0;
    }
    core::Cluster cluster = core::load_cluster(*topology);
    if (cluster.network.kind != core::NetworkKind::kSwitch &&
        cluster.network.kind != core::NetworkKind::kTwoTier)
      throw core::InputError(*topology, 0, "network.kind",
                             "the emulated cluster supports switch and two_tier networks");
    if (!cluster.nodes && *devices == 0)
      throw core::InputError(*topology, 0, "nodes",
                             "is auto: say how many devices to provide with --devices");
    core::Topology topo = core::Topology::build(cluster, *devices);
    std::string why = exec::emulation_unavailable();
    if (!why.empty()) {
      std::fprintf(stderr, "error: %s\n", why.c_str());
      return 1;
    }
    exec::EmulatedCluster c = exec::cluster_up(topo, cluster.name);
    std::printf("emulated cluster '%s' up: %zu nodes\n", cluster.name.c_str(), c.node_netns.size());
    for (std::size_t n = 0; n < c.node_netns.size(); ++n) {
      std::string addresses = c.node_ip[n];
      for (const auto& ip : c.node_rail_ip[n]) addresses += ", " + ip;  // rails 1, 2, ...
      std::printf("  node%zu  namespace %s  address%s %s\n", n, c.node_netns[n].c_str(),
                  c.node_rail_ip[n].empty() ? "" : "es", addresses.c_str());
    }
    return 0;
  };
}

}  // namespace scaleout::cli

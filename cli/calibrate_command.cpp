#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "cli/plan_args.hpp"
#include "core/atomic_file.hpp"
#include "core/plan_loader.hpp"
#include "exec/calibrate.hpp"

namespace scaleout::cli {

Action add_calibrate_command(CLI::App& app) {
  auto topology = std::make_shared<std::string>();
  auto output = std::make_shared<std::string>();
  auto cluster = std::make_shared<std::string>("local");
  CLI::App* cmd =
      app.add_subcommand("calibrate",
                         "Measure what a topology claims (latency, bandwidth, compute and "
                         "reduction rates) and write a\n"
                         "topology with the measured values.\n"
                         "Example: scaleout calibrate topologies/emulated-4x200mbit.yaml --cluster "
                         "emulated -o calibrated.yaml");
  cmd->add_option("topology", *topology, "topology YAML file")->required();
  cmd->add_option("-o,--output", *output, "calibrated topology YAML")
      ->required()
      ->check(non_empty_path());
  cmd->add_option("--cluster", *cluster,
                  "local (loopback) or emulated (across its first two nodes)")
      ->check(CLI::IsMember({"local", "emulated"}));
  return [=]() {
    core::load_cluster(*topology);  // a topology we can read, or a clear error
    exec::CalibrateOptions options;
    if (*cluster == "emulated") {
      exec::ExecOptions where;
      use_emulated_cluster(where);
      options.node_netns = where.node_netns;
      options.node_ip = where.node_ip;
    }
    exec::Calibration c = exec::calibrate(options);
    std::string yaml = exec::calibrated_topology_yaml(*topology, c);
    core::write_file_atomic(*output, yaml);
    std::printf("inter-node  %10.3f us  %10.2f MB/s\n", c.inter_node.latency_s * 1e6,
                c.inter_node.bandwidth_Bps / 1e6);
    std::printf("intra-node  %10.3f us  %10.2f MB/s\n", c.intra_node.latency_s * 1e6,
                c.intra_node.bandwidth_Bps / 1e6);
    std::printf("compute     %10.3f GFLOP/s per device\n", c.device_flops / 1e9);
    std::printf("reduction   %10.3f GB/s\n", c.reduction_Bps / 1e9);
    std::printf("written to %s\n", output->c_str());
    return 0;
  };
}

}  // namespace scaleout::cli

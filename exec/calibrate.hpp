// Measures what a topology claims, on the machine (or emulated cluster) at hand: latency by
// ping-pong and bandwidth by streaming, between two devices of one node and between two nodes,
// the compute rate of a device (multiply-adds) and its reduction rate (adding float buffers).
#pragma once

#include <string>
#include <vector>

namespace scaleout::exec {

struct LinkMeasure {
  double latency_s = 0;      // one way: half the median round trip of a small message
  double bandwidth_Bps = 0;  // payload bytes per second of a long stream
};

struct Calibration {
  LinkMeasure intra_node;    // two ranks in one node's namespace (or on loopback)
  LinkMeasure inter_node;    // node 0 to node 1 (emulated cluster); same as intra on loopback
  double device_flops = 0;   // the compute phase's rate on one device (a CPU core, or a GPU)
  double reduction_Bps = 0;  // bytes of additions per second
  // Links not measured (one GPU: no pair; one node: no inter-node link) keep the claimed values.
  bool intra_measured = true;
  bool inter_measured = true;
  std::string device = "one CPU core, multiply-adds";  // what was measured, for the comment
  std::string device_name;  // replaces the topology's device name when set (a GPU's own)
};

struct CalibrateOptions {
  std::vector<std::string> node_netns;  // emulated cluster: measure across its first two nodes
  std::vector<std::string> node_ip;
  double stream_bytes = 32e6;
  int round_trips = 200;
};

// Throws std::runtime_error when a measuring rank fails.
Calibration calibrate(const CalibrateOptions& options);

// Writes the topology at `topology_path` with the measured values in place of the claimed ones
// (device.flops, intra_node, nic) and a comment block recording what was measured.
std::string calibrated_topology_yaml(const std::string& topology_path, const Calibration& c);

}  // namespace scaleout::exec

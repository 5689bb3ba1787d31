// Measures what a topology claims, on the machine (or emulated cluster) at hand: latency by
// ping-pong and bandwidth by streaming, between two devices of one node and between two nodes,
// the compute rate of a device (multiply-adds) and its reduction rate (adding float buffers).
#pragma once

#include <string>
#include <vector>

namespace scaleout::exec {

struct LinkMeasure {
  double latency_s = 0;  // one way: half the median round trip of a small message
  // Payload bytes per second: on CPUs each way with `flows` flows each way at once, as the
  // strategies load a link; between two GPUs, one NCCL send one way.
  double bandwidth_Bps = 0;
  double tcp_latency_s = 0;  // one way over a bare TCP connection (the link without Gloo)
  double tcp_window_B = 0;   // the kernel's TCP window in the sender's namespace (0: not read)
  // How bandwidth_Bps came about (CPU calibration; 0: not measured): one flow one way, one flow
  // each way at once, and `flows` flows each way at once (per direction, all flows together).
  double one_way_Bps = 0;
  double both_ways_Bps = 0;
  int flows = 1;
};

// The host's software costs (the topology's `host:`), measured on CPUs only.
struct HostMeasure {
  double message_overhead_s = 0;  // Gloo's small-message one-way time less bare TCP's
  double copy_Bps = 0;            // memcpy
  double sum_Bps = 0;             // the additions a server runs (the reduction rate)
  double compensate_rate = 0;     // elements/s of DC-ASGD's update and pulled copy
};

// The rates the device runs gradient compressors at (the topology's `device.compress`),
// elements per second, measured on one CPU core or, with --backend cuda, by the GPU codecs.
struct CodecMeasure {
  double topk = 0;      // top-k selection (encode)
  double quantize = 0;  // the slower of int8's and 1-bit's encode
  double lowrank = 0;   // a whole PowerSGD step at rank 4
};

struct Calibration {
  LinkMeasure intra_node;    // two ranks in one node's namespace (or on loopback)
  LinkMeasure inter_node;    // node 0 to node 1 (emulated cluster); same as intra on loopback
  double device_flops = 0;   // the compute phase's rate on one device (a CPU core, or a GPU)
  double reduction_Bps = 0;  // bytes of additions per second
  // Links not measured (one GPU: no pair; one node: no inter-node link) keep the claimed values.
  bool intra_measured = true;
  bool inter_measured = true;
  bool host_measured = false;  // a GPU's calibration leaves the host's costs as claimed
  HostMeasure host;
  bool codecs_measured = false;
  CodecMeasure codecs;
  std::string codecs_where = "one core";               // for the comment: "one core" or "the GPU"
  std::string device = "one CPU core, multiply-adds";  // what was measured, for the comment
  std::string device_name;  // replaces the topology's device name when set (a GPU's own)
};

struct CalibrateOptions {
  std::vector<std::string> node_netns;  // emulated cluster: measure across its first two nodes
  std::vector<std::string> node_ip;
  double stream_bytes = 32e6;
  int round_trips = 200;
  int nic_flows = 2;  // flows each way at once between the two nodes (several ranks a NIC)
};

// "2 flows each way at once (one flow each way at once: 23.2 MB/s; one flow one way: 24 MB/s)";
// "" when the link was measured without flows (a GPU pair).
std::string describe_link_flows(const LinkMeasure& m);

// Throws std::runtime_error when a measuring rank fails.
Calibration calibrate(const CalibrateOptions& options);

// Writes the topology at `topology_path` with the measured values in place of the claimed ones
// (device.flops, intra_node, nic; device.compress when the codecs were measured) and a comment
// block recording what was measured. With host
// costs measured it writes `host:` too, and the NIC's latency is bare TCP's: the rest of Gloo's
// one-way time is the per-message overhead (charged to parameter servers' messages).
std::string calibrated_topology_yaml(const std::string& topology_path, const Calibration& c);

}  // namespace scaleout::exec

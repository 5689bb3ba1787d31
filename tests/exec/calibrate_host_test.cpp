// The host's software costs in a calibrated topology: written from the measurements, loaded back
// by the plan loader; and the measurements themselves on this machine.
#include "exec/calibrate_host.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "core/plan/plan_loader.hpp"
#include "exec/calibrate.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::exec {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

core::Plan load_calibrated(const fs::path& dir, const Calibration& c) {
  std::ofstream(dir / "calibrated.yaml")
      << calibrated_topology_yaml(testing::source_path("topologies/v100-ib-switch.yaml"), c);
  std::ofstream(dir / "plan.yaml") << "cluster: calibrated.yaml\n"
                                      "workload: { name: m, parameters: 1M, flops_per_sample: "
                                      "1GFLOP }\n"
                                      "strategy: { kind: ps }\ntraining: { workers: 8 }\n";
  return core::load_plan((dir / "plan.yaml").string());
}

TEST(CalibrateHost, CalibratedTopologyCarriesTheHostCosts) {
  fs::path dir = fresh_dir("scaleout-calibrate-host");
  Calibration c;
  c.device_flops = 5e10;
  c.reduction_Bps = 3e9;
  c.intra_node = {30e-6, 2e9, 10e-6};
  c.inter_node = {50e-6, 1e9, 20e-6};  // Gloo one way 50 us, bare TCP 20 us
  c.host_measured = true;
  c.host = {30e-6, 9e9, 3e9};
  core::Plan p = load_calibrated(dir, c);
  EXPECT_NEAR(p.cluster.host.message_overhead, 30e-6, 1e-12);
  EXPECT_NEAR(p.cluster.host.copy_rate, 9e9, 1);
  EXPECT_NEAR(p.cluster.host.sum_rate, 3e9, 1);
  // The NIC's latency is bare TCP's: with the overhead it adds up to Gloo's one way time.
  EXPECT_NEAR(p.cluster.nic.latency, 20e-6, 1e-12);
  EXPECT_NEAR(p.cluster.nic.latency + p.cluster.host.message_overhead, c.inter_node.latency_s,
              1e-12);
  EXPECT_NEAR(p.cluster.nic.bandwidth, 1e9, 1);
  EXPECT_EQ(p.cluster.transport.kind, core::TransportKind::kTcp);
  EXPECT_EQ(p.cluster.transport.window, core::Transport{}.window);  // no window read: the default

  // The kernel's window between the nodes, read where they were measured, becomes the transport's.
  c.inter_node.tcp_window_B = 3145728;
  core::Plan windowed = load_calibrated(dir, c);
  EXPECT_EQ(windowed.cluster.transport.kind, core::TransportKind::kTcp);
  EXPECT_EQ(windowed.cluster.transport.window, 3145728);
  EXPECT_LT(windowed.cluster.transport.eager_limit, 0);  // Gloo switches nothing by size
  c.inter_node.tcp_window_B = 0;

  // A GPU's calibration measures no host: the topology's claims stay, no `host:` appears.
  c.host_measured = false;
  core::Plan gpu = load_calibrated(dir, c);
  EXPECT_FALSE(gpu.cluster.host.any());
  EXPECT_NEAR(gpu.cluster.nic.latency, 50e-6, 1e-12);
  fs::remove_all(dir);
}

// The window is the smaller of the send buffer's ceiling and the receive buffer's payload share:
// never above tcp_wmem's maximum nor tcp_rmem's, and more than a few packets.
TEST(CalibrateHost, ReadsTheKernelsTcpWindow) {
  auto ceiling = [](const char* path) {
    std::ifstream in(path);
    double low = 0, initial = 0, high = 0;
    in >> low >> initial >> high;
    return high;
  };
  double window = kernel_tcp_window();
  EXPECT_GT(window, 64 * 1024);
  EXPECT_LE(window, ceiling("/proc/sys/net/ipv4/tcp_wmem"));
  EXPECT_LT(window, ceiling("/proc/sys/net/ipv4/tcp_rmem"));
}

TEST(CalibrateHost, MeasuresCopiesAndBareTcpRoundTrips) {
  double copy = measure_copy_rate();
  EXPECT_GT(copy, 1e8);  // any machine copies more than 100 MB/s
  fs::path dir = fresh_dir("scaleout-calibrate-tcp");
  double trips[2] = {0, 0};
  std::thread one([&] { trips[1] = tcp_round_trip(1, dir.string(), "127.0.0.1", 50); });
  trips[0] = tcp_round_trip(0, dir.string(), "127.0.0.1", 50);
  one.join();
  for (double t : trips) {
    EXPECT_GT(t, 0);
    EXPECT_LT(t, 0.1);
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace scaleout::exec

// The emulated cluster: network namespaces, bridges and tc rate limits on this machine. These
// tests need root (CI is root); elsewhere they skip and say why.
#include "exec/emulated_cluster.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/plan/plan_loader.hpp"
#include "exec/cluster_state.hpp"
#include "exec/local_run.hpp"
#include "tests/core/plan_text.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::exec {
namespace {

constexpr double kLineRate = 25e6;  // 200 Mb/s in bytes/s

class Emulated : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why = emulation_unavailable();
    if (!why.empty()) GTEST_SKIP() << "skipped: " << why;
    cluster_down();
  }
  void TearDown() override {
    if (emulation_unavailable().empty()) cluster_down();
  }

  core::Plan plan(core::StrategyKind kind, int workers, double parameters) {
    core::Plan p;
    p.file = "emulated-test";
    p.cluster = core::load_cluster(testing::source_path("topologies/emulated-4x200mbit.yaml"));
    p.workload.name = "gradient";
    p.workload.parameters = parameters;
    p.workload.flops_per_sample = 1e6;
    p.strategy.kind = kind;
    p.strategy.chunk = 256 * 1024;
    p.training.workers = workers;
    p.training.batch_per_worker = 1;
    p.training.steps = 4;
    return p;
  }

  ExecOptions on_cluster(const EmulatedCluster& c) {
    ExecOptions o;
    o.baselines = false;
    o.timeout = std::chrono::milliseconds(20000);
    o.node_netns = c.node_netns;
    o.node_ip = c.node_ip;
    o.node_rail_ip = c.node_rail_ip;
    return o;
  }

  static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  }
};

TEST_F(Emulated, RingReachesNinetyPercentOfTheLineRate) {
  core::Plan p = plan(core::StrategyKind::kRing, 4, 4e6);
  p.training.steps = 7;
  EmulatedCluster c = cluster_up(core::Topology::build(p.cluster, 4));
  core::RunResult r = run_local(p, on_cluster(c));
  EXPECT_EQ(r.wrong, 0);
  // The rate the ring reaches is its fastest step's: the shaped links cap every step, and a busy
  // machine only slows some (the median of seven sat at 89.0% once while the CPUs were shared).
  double fastest = 1e300;
  for (const auto& s : r.steps) fastest = std::min(fastest, s.time_s);
  double busbw = r.bytes * 2.0 * 3 / 4 / fastest;  // compute is negligible here
  EXPECT_GE(busbw, 0.9 * kLineRate) << "fastest step " << fastest << " s";
}

// Bytes each network device of namespace `ns` has sent, by device (loopback left out).
std::map<std::string, double> sent_by_device(const std::string& ns) {
  std::string text;
  FILE* pipe = ::popen(("ip -n " + ns + " -j -s link show").c_str(), "r");
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, pipe)) text.append(buf, n);
  ::pclose(pipe);
  std::map<std::string, double> sent;
  for (const auto& dev : nlohmann::json::parse(text))
    if (dev["ifname"] != "lo") sent[dev["ifname"]] = dev["stats64"]["tx"]["bytes"];
  return sent;
}

// Two NICs per node: a ring of two moves every transfer in halves over both rails at once, so it
// runs near twice one rail's rate, and each rail's NIC sends half the bytes.
TEST_F(Emulated, TwoRailsCarryHalfTheBytesEachAtTwiceOneRailsRate) {
  core::Plan p = plan(core::StrategyKind::kRing, 2, 4e6);
  p.cluster = core::load_cluster(testing::source_path("topologies/emulated-2x2rails.yaml"));
  p.training.steps = 5;
  EmulatedCluster c = cluster_up(core::Topology::build(p.cluster, 2));
  ASSERT_EQ(c.node_rail_ip.size(), 2u);
  ASSERT_EQ(c.node_rail_ip[0].size(), 1u);
  core::RunResult r = run_local(p, on_cluster(c));
  EXPECT_EQ(r.wrong, 0);
  std::vector<double> steps;
  for (const auto& s : r.steps) steps.push_back(s.time_s);
  double busbw = r.bytes / median(steps);  // a ring of two: 2(N-1)/N = 1
  // Measured 83% to 94% of two rails' rate over six runs; CI once failed a bound of 85% at
  // 84.5% and once a bound of 75% at 72.6%, beside other tests on a 2-core machine. One rail alone
  // cannot pass 48% (TCP through tbf carries 95.6% of one rail), so 60% still tells them apart.
  EXPECT_GE(busbw, 0.6 * 2 * kLineRate) << "median step " << median(steps) << " s";
  auto sent = sent_by_device(c.node_netns[0]);
  ASSERT_EQ(sent.size(), 2u);
  double total = 0;
  for (const auto& [dev, bytes] : sent) total += bytes;
  for (const auto& [dev, bytes] : sent) EXPECT_NEAR(bytes / total, 0.5, 0.05) << dev;
}

TEST_F(Emulated, OneServerPsIsBoundByTheServerLink) {
  // Three workers and a dedicated server: each exchange moves 3 gradients through the server's
  // link, so push + pull take 2 x 3 x S / B (TCP payload through tbf: ~95.6% of the rate).
  core::Plan p = plan(core::StrategyKind::kPs, 3, 2e6);
  p.training.steps = 3;
  EmulatedCluster c = cluster_up(core::Topology::build(p.cluster, 4));
  core::RunResult r = run_local(p, on_cluster(c));
  EXPECT_EQ(r.wrong, 0);
  std::vector<double> steps;
  for (const auto& s : r.steps) steps.push_back(s.time_s);
  double bound = 2 * 3 * r.bytes / (0.956 * kLineRate);
  EXPECT_NEAR(median(steps) / bound, 1.0, 0.15)
      << "median step " << median(steps) << " s, bound " << bound << " s";
}

// A model-parallel plan across the namespaces: pipeline 2 x data 2, one rank a host, so every
// activation, activation gradient and data-group ring transfer crosses a rate-limited link. Each
// stage checks the micro-batches it receives and the data group's sums, as on loopback; each
// host's NIC sends at least what its data-group exchange moves a step (the result's `bytes`)
// every step, besides the activations.
TEST_F(Emulated, AModelParallelPlanRunsAcrossTheHostsWithExactSums) {
  core::Plan p = testing::load_text(
      "emulated-mp",
      "cluster: " + testing::source_path("topologies/emulated-4x200mbit.yaml") +
          "\nworkload:\n  name: gpt-tiny\n"
          "  transformer: { layers: 4, hidden: 64, heads: 4, sequence: 32, vocabulary: 100 }\n"
          "parallelism: { pipeline: 2 }\n"
          "strategy: { kind: ring }\n"
          "training: { workers: 4, global_batch: 8, steps: 2 }\n");
  EmulatedCluster c = cluster_up(core::Topology::build(p.cluster, 4));
  core::RunResult r = run_local(p, on_cluster(c));
  EXPECT_EQ(r.wrong, 0);
  ASSERT_TRUE(r.model_parallel);
  EXPECT_EQ(r.model_parallel->pipeline, 2);
  EXPECT_EQ(r.model_parallel->data, 2);
  EXPECT_GT(r.model_parallel->data_comm_s, 0);
  for (const auto& ns : c.node_netns) {
    double sent = 0;
    for (const auto& [dev, bytes] : sent_by_device(ns)) sent += bytes;
    EXPECT_GT(sent, r.bytes * r.steps.size()) << ns;
  }
}

// Expert parallelism across the namespaces (expert 2 x data 2, one rank a host): every token
// segment crosses a rate-limited link to its expert's host and back, checked from its sender, and
// the experts' gradients sum over their own data group. Pairwise and hierarchical (one device a
// node: only its step across the nodes).
TEST_F(Emulated, AnExpertParallelPlanDeliversEveryTokenAcrossTheHosts) {
  auto plan_with = [](const std::string& alltoall) {
    return testing::load_text(
        "emulated-ep-" + alltoall,
        "cluster: " + testing::source_path("topologies/emulated-4x200mbit.yaml") +
            "\nworkload:\n  name: moe-tiny\n"
            "  transformer: { layers: 2, hidden: 64, heads: 4, sequence: 32, vocabulary: 100,"
            " moe: { experts: 2, top_k: 1 } }\n"
            "parallelism: { expert: 2, expert_alltoall: " +
            alltoall +
            " }\n"
            "strategy: { kind: ring }\n"
            "training: { workers: 4, global_batch: 4, steps: 2 }\n");
  };
  EmulatedCluster c = cluster_up(core::Topology::build(plan_with("pairwise").cluster, 4));
  for (const std::string alltoall : {"pairwise", "hierarchical"}) {
    SCOPED_TRACE(alltoall);
    core::RunResult r = run_local(plan_with(alltoall), on_cluster(c));
    EXPECT_EQ(r.wrong, 0);
    ASSERT_TRUE(r.model_parallel);
    EXPECT_EQ(r.model_parallel->expert, 2);
    EXPECT_EQ(r.model_parallel->expert_alltoall, alltoall);
    EXPECT_GT(r.model_parallel->expert_comm_s, 0);
  }
}

TEST_F(Emulated, DownLeavesNothingAlsoAfterAFailedRun) {
  core::Plan p = plan(core::StrategyKind::kRing, 4, 1e5);
  EmulatedCluster c = cluster_up(core::Topology::build(p.cluster, 4));
  EXPECT_EQ(emulation_leftovers().size(), 5u);  // four hosts and the switches (veths moved in)
  ExecOptions o = on_cluster(c);
  o.faults.kill_rank = 2;
  o.faults.kill_step = 1;
  o.timeout = std::chrono::milliseconds(3000);
  EXPECT_THROW(run_local(p, o), RunFailed);
  cluster_down();
  EXPECT_TRUE(emulation_leftovers().empty());
  EXPECT_FALSE(current_cluster().has_value());
}

// Overlap for real: with compute about as long as the exchange, buckets leaving while backward
// runs make the step clearly shorter than the same plan's without overlap. Each rank's device is
// emulated (compute waits, the CPU stays free, as with a GPU): two cores cannot run four ranks'
// compute kernels and their TCP at once (the loopback test runs the real kernel beside exchanges).
TEST_F(Emulated, OverlapHidesTheExchangeBehindBackward) {
  core::Plan p = plan(core::StrategyKind::kRing, 4, 4e6);  // 16 MB: about 1 s of exchange
  p.training.fusion_buffer = 4 * 1024 * 1024;
  p.workload.flops_per_sample = 1e9;  // one second a step on a 1 GFLOP/s device
  EmulatedCluster c = cluster_up(core::Topology::build(p.cluster, 4));
  ExecOptions o = on_cluster(c);
  o.compute_scale = 1;
  o.emulated_device_flops = 1e9;
  auto median_step = [&](bool overlap) {
    p.training.overlap = overlap;
    core::RunResult r = run_local(p, o);
    EXPECT_EQ(r.wrong, 0);
    std::vector<double> steps;
    for (const auto& s : r.steps) steps.push_back(s.time_s);
    return median(steps);
  };
  double without = median_step(false), with = median_step(true);
  EXPECT_LT(with, 0.85 * without) << "overlapped " << with << " s, not overlapped " << without
                                  << " s";
}

bool netns_exists(const std::string& name) {
  return std::filesystem::exists("/var/run/netns/" + name);
}
bool root_link_exists(const std::string& name) {
  return std::filesystem::exists("/sys/class/net/" + name);
}

// Namespaces and links someone else made with names like the cluster's are neither removed by
// `down` nor taken over by `up`.
TEST_F(Emulated, DownRemovesOnlyWhatUpMade) {
  std::system("ip netns delete so-users-own; ip link delete sov9a; ip netns delete so-n2 2>&1");
  ASSERT_EQ(std::system("ip netns add so-users-own && ip link add sov9a type veth peer name sov9b"),
            0);
  core::Plan p = plan(core::StrategyKind::kRing, 4, 1e5);
  cluster_up(core::Topology::build(p.cluster, 4));
  EXPECT_TRUE(netns_exists("so-n3"));
  cluster_down();
  EXPECT_FALSE(netns_exists("so-n3"));
  EXPECT_TRUE(netns_exists("so-users-own"));
  EXPECT_TRUE(root_link_exists("sov9a"));
  // A namespace of the name up would make: refused, and left alone.
  ASSERT_EQ(std::system("ip netns add so-n2"), 0);
  try {
    cluster_up(core::Topology::build(p.cluster, 4));
    ADD_FAILURE() << "cluster_up took over an existing so-n2";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("namespace so-n2 exists already"), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(netns_exists("so-n2"));
  EXPECT_FALSE(netns_exists("so-n0"));  // what that up made before it stopped is gone
  EXPECT_TRUE(emulation_leftovers().empty());
  EXPECT_EQ(std::system("ip netns delete so-n2 && ip netns delete so-users-own && "
                        "ip link delete sov9a"),
            0);
}

// `cluster up` killed while its first veth pair is still in the root namespace: `down` removes it
// and every namespace made so far, from the state file written before each object was made.
TEST_F(Emulated, DownRemovesWhatAnInterruptedUpLeft) {
  core::Topology topo = core::Topology::build(plan(core::StrategyKind::kRing, 4, 1e5).cluster, 4);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::setpgid(0, 0);  // its `ip` commands die with it
    try {
      cluster_up(topo);
    } catch (...) {
    }
    std::_Exit(0);
  }
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!root_link_exists("sov0a") && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  ::kill(-pid, SIGKILL);
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  ClusterState state = ClusterState::load();
  EXPECT_GE(state.objects().size(), 6u);        // the switches, four nodes and at least one veth
  EXPECT_FALSE(current_cluster().has_value());  // an incomplete cluster is not used
  cluster_down();
  EXPECT_TRUE(emulation_leftovers().empty());
  for (const auto& o : state.objects()) EXPECT_FALSE(o.exists()) << o.what();
  EXPECT_FALSE(root_link_exists("sov0a"));
  EXPECT_FALSE(root_link_exists("sov0b"));
  EXPECT_FALSE(netns_exists("so-switches"));
  EXPECT_FALSE(std::filesystem::exists(ClusterState::path()));
}

}  // namespace
}  // namespace scaleout::exec

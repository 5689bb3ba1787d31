// A model-parallel plan's step as Chakra execution traces, read back with Chakra's schema (the
// Python classes protoc makes of tests/data/chakra/et_def.proto, by tests/chakra_read.py): each
// rank's file parses, and holds what the split says it runs, worked out here by hand.
#include "analytic/chakra_trace.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>

#include "analytic/analytic.hpp"
#include "core/model/model_parallel_work.hpp"
#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"
#include "tests/core/plan_text.hpp"
#include "tests/support/command.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::sim {
namespace {

using nlohmann::json;

// 8 layers (hidden 2,048, sequence 1,024) on 32 devices: tensor 2 x pipeline 2 x data 8, 64
// sequences in micro-batches of 2, so 4 micro-batches a replica, 1F1B, no recomputation.
core::Plan split_plan() {
  core::Plan plan = testing::small_transformer_plan("chakra", "80GB");
  plan.parallelism->tensor = 2;
  plan.parallelism->pipeline = 2;
  plan.parallelism->microbatch = 2;
  plan.parallelism->schedule = core::PipelineScheduleKind::kOneFOneB;
  plan.parallelism->recompute = core::Recompute::kNone;
  core::validate_plan(plan);
  return plan;
}

// Writes the plan's traces into `dir` and reads them back with the schema.
json read_back(const core::Plan& plan, const std::filesystem::path& dir, int ranks) {
  EXPECT_EQ(write_chakra(plan, dir.string()), ranks);
  std::string schema = testing::source_path("tests/data/chakra");
  testing::Output protoc =
      testing::shell("protoc --proto_path=" + schema + " --python_out=" + dir.string() + " " +
                     schema + "/et_def.proto");
  EXPECT_EQ(protoc.code, 0) << protoc.text;
  testing::Output read = testing::shell(
      "/usr/bin/python3 " + testing::source_path("tests/chakra_read.py") + " " + dir.string() +
      " " + dir.string() + " " + std::to_string(ranks) + " 2>/dev/null");
  EXPECT_EQ(read.code, 0) << "a trace does not parse with Chakra's schema";
  return json::parse(read.text);
}

std::vector<json> of_type(const json& rank, const std::string& type) {
  std::vector<json> out;
  for (const json& n : rank["nodes"])
    if (n["type"] == type) out.push_back(n);
  return out;
}

// Megatron's numbering, tensor fastest, then data, then stage: 2 x 8 x 2.
int rank_of(int tensor, int data, int stage) { return tensor + 2 * (data + 8 * stage); }

TEST(ChakraTrace, EachRankRunsItsStagesScheduleThenTheDataGroupsExchange) {
  core::Plan plan = split_plan();
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "scaleout-chakra-test";
  std::filesystem::remove_all(dir);
  json traces = read_back(plan, dir, 32);
  json groups = json::parse(std::ifstream(dir / "comm_group.json"));
  ASSERT_EQ(traces["ranks"].size(), 32u);
  const double activation = 2.0 * 1024 * 2048 * 2;            // b s h at 2 bytes
  std::set<std::tuple<int, int, int, long>> sends, receives;  // (src, dst, tag, bytes)
  for (int r = 0; r < 32; ++r) {
    const json& rank = traces["ranks"][r];
    EXPECT_EQ(rank["metadata"]["producer"], "scaleout");
    int tensor = r % 2, data = (r / 2) % 8, stage = r / 16;
    // 4 micro-batches, forward and backward, 4 layers a stage; the output layer forward and
    // backward on the last; the optimizer's update.
    EXPECT_EQ(of_type(rank, "COMP_NODE").size(), 4u * 2 * 4 + (stage == 1 ? 8 : 0) + 1) << r;
    int tensor_allreduces = 0, data_allreduces = 0;
    for (const json& n : of_type(rank, "COMM_COLL_NODE")) {
      EXPECT_EQ(n["attr"]["comm_type"], 0) << "all-reduce";
      std::vector<int> members = groups[n["attr"]["pg_name"].get<std::string>()];
      if (members.size() == 2) {
        ++tensor_allreduces;
        EXPECT_EQ(n["attr"]["comm_size"], static_cast<long>(activation));
        EXPECT_EQ(members, (std::vector<int>{rank_of(0, data, stage), rank_of(1, data, stage)}));
      } else {
        ++data_allreduces;
        ASSERT_EQ(members.size(), 8u);
        for (int d = 0; d < 8; ++d) EXPECT_EQ(members[d], rank_of(tensor, d, stage));
        EXPECT_GT(n["attr"]["comm_size"], 0);
      }
    }
    EXPECT_EQ(tensor_allreduces, 4 * 4 * (2 + 2)) << r;  // a layer's 2 forward, 2 backward
    EXPECT_EQ(data_allreduces, 1) << r;
    for (const json& n : rank["nodes"]) {
      EXPECT_FALSE(n["attr"]["is_cpu_op"].get<bool>());
      for (std::uint64_t dep : n["data_deps"]) EXPECT_LT(dep, n["id"].get<std::uint64_t>());
      if (n["type"] != "COMM_SEND_NODE" && n["type"] != "COMM_RECV_NODE") continue;
      EXPECT_EQ(n["attr"]["comm_size"], static_cast<long>(activation));
      auto key =
          std::make_tuple(n["attr"]["comm_src"].get<int>(), n["attr"]["comm_dst"].get<int>(),
                          n["attr"]["comm_tag"].get<int>(), n["attr"]["comm_size"].get<long>());
      (n["type"] == "COMM_SEND_NODE" ? sends : receives).insert(key);
      int peer = rank_of(tensor, data, 1 - stage);
      EXPECT_EQ(n["type"] == "COMM_SEND_NODE" ? std::get<1>(key) : std::get<0>(key), peer);
    }
  }
  // Each stage sends 4 micro-batches' activations (or their gradients) to the other: every send
  // has its receive.
  EXPECT_EQ(sends.size(), 32u * 4);
  EXPECT_EQ(sends, receives);
  // The busiest rank's compute nodes add up to the closed form's compute, to the microsecond
  // each node is rounded to.
  double most = 0;
  for (const json& rank : traces["ranks"]) {
    double sum = 0;
    for (const json& n : of_type(rank, "COMP_NODE")) sum += n["duration_micros"].get<double>();
    most = std::max(most, sum);
  }
  EXPECT_NEAR(most * 1e-6, predict_analytic(plan).phases.compute_s, 41 * 0.5e-6);
  std::filesystem::remove_all(dir);
}

// The whole program at once holds what the files hold, rank by rank.
TEST(ChakraTrace, TheProgramInMemoryIsWhatTheFilesHold) {
  core::Plan plan = split_plan();
  ChakraProgram program = chakra_program(plan);
  ASSERT_EQ(program.ranks.size(), 32u);
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "scaleout-chakra-same";
  std::filesystem::remove_all(dir);
  write_chakra(plan, dir.string());
  for (int r : {0, 17, 31}) {
    std::ifstream in(dir / ("scaleout." + std::to_string(r) + ".et"), std::ios::binary);
    std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::string expected;
    core::append_delimited(
        expected,
        core::encode_global_metadata({core::ChakraAttribute::string("schema", "1.0.2-chakra.1.0.0"),
                                      core::ChakraAttribute::string("producer", "scaleout"),
                                      core::ChakraAttribute::string("plan", plan.file)}));
    for (const core::ChakraNode& n : program.ranks[r])
      core::append_delimited(expected, core::encode_node(n));
    EXPECT_EQ(file, expected) << r;
  }
  std::filesystem::remove_all(dir);
}

// A rank's collectives by kind: how many, their sizes, and the size of the group each runs over.
struct Collectives {
  int count = 0;
  std::set<long> bytes;
  std::set<std::size_t> members;
};
std::map<core::ChakraCollective, Collectives> collectives(const ChakraProgram& program, int rank) {
  std::map<core::ChakraCollective, Collectives> out;
  for (const core::ChakraNode& n : program.ranks[rank]) {
    if (n.type != core::ChakraNodeType::kCollective) continue;
    std::map<std::string, const core::ChakraAttribute*> at;
    for (const auto& a : n.attributes) at[a.name] = &a;
    Collectives& c = out[static_cast<core::ChakraCollective>(at["comm_type"]->integer)];
    ++c.count;
    c.bytes.insert(static_cast<long>(at["comm_size"]->integer));
    c.members.insert(program.groups.at(std::stoi(at["pg_name"]->text)).size());
    for (std::uint64_t dep : n.data_deps) EXPECT_LT(dep, n.id);
  }
  return out;
}

// ZeRO-3 (testing::two_node_gpt: 8 layers, tensor 2 x data 8, 16 sequences: 2 micro-batches of
// 1): each layer's parameters gathered before its forward and its backward, its gradient
// reduce-scattered after its backward, over the 8 data ranks: 2 x 8 x 2 gathers and 2 x 8
// reduce-scatters, no all-reduce of the gradient. ZeRO-2: no gathers but the step end's one.
TEST(ChakraTrace, ZeroTwoAndThreeRunTheirCollectivesEveryLayer) {
  for (int zero : {2, 3}) {
    SCOPED_TRACE(zero);
    core::Plan plan = testing::load_text(
        "chakra-zero",
        testing::two_node_gpt("tensor: 2, zero: " + std::to_string(zero) + ", framework: any", 16,
                              16));
    core::ModelParallelWork work = core::model_parallel_work(plan);
    ChakraProgram program = chakra_program(plan);
    ASSERT_EQ(program.ranks.size(), 16u);
    auto c = collectives(program, 5);
    long layer = std::lround(work.layer_shard_bytes);
    EXPECT_EQ(c[core::ChakraCollective::kReduceScatter].count, 2 * 8);
    EXPECT_EQ(c[core::ChakraCollective::kReduceScatter].bytes, std::set<long>{layer});
    EXPECT_EQ(c[core::ChakraCollective::kReduceScatter].members, std::set<std::size_t>{8});
    Collectives gathers = c[core::ChakraCollective::kAllGather];
    EXPECT_EQ(gathers.count, zero == 3 ? 2 * 8 * 2 : 1);
    EXPECT_EQ(gathers.bytes, std::set<long>{zero == 3 ? layer : std::lround(work.gradient_bytes)});
    EXPECT_EQ(gathers.members, std::set<std::size_t>{8});
    EXPECT_EQ(c[core::ChakraCollective::kAllReduce].members, std::set<std::size_t>{2});  // tensor
  }
}

// Experts (pipeline 2 x data 8 with expert 4, one MoE layer every 2 of 8: 2 a stage; 2
// micro-batches of 1): each MoE layer's dispatch and combine forward and backward, all-to-alls of
// 1,024 tokens x top-2 x 1,024 wide x 2 bytes = 4,194,304 B over the 4 expert ranks, 2 x 2 x 4 a
// rank; the dense gradient all-reduced over the 8 data ranks, the experts' over the 2 that hold
// the same experts.
TEST(ChakraTrace, ExpertsExchangeTokensAndTheirOwnGradient) {
  std::string text = testing::two_node_gpt("tensor: 1, pipeline: 2, expert: 4", 16, 16);
  std::string dense = "vocabulary: 32000 }";
  text.replace(text.find(dense), dense.size(),
               "vocabulary: 32000, moe: { experts: 8, top_k: 2, every: 2 } }");
  ChakraProgram program = chakra_program(testing::load_text("chakra-experts", text));
  for (int rank : {0, 9}) {
    auto c = collectives(program, rank);
    EXPECT_EQ(c[core::ChakraCollective::kAllToAll].count, 2 * 2 * 4);
    EXPECT_EQ(c[core::ChakraCollective::kAllToAll].bytes, std::set<long>{4194304});
    EXPECT_EQ(c[core::ChakraCollective::kAllToAll].members, std::set<std::size_t>{4});
    EXPECT_EQ(c[core::ChakraCollective::kAllReduce].count, 2);
    EXPECT_EQ(c[core::ChakraCollective::kAllReduce].members, (std::set<std::size_t>{2, 8}));
  }
}

// A compute node's FLOPs (0 where it gives none).
long num_ops(const core::ChakraNode& n) {
  for (const auto& a : n.attributes)
    if (a.name == "num_ops") return static_cast<long>(a.integer);
  return 0;
}

// The zero-bubble schedule (split_plan's 4 micro-batches, 4 layers a stage): each rank's 4
// weight passes are compute nodes of their own, each of the stage's 4 layers' weight FLOPs, taken
// from its backwards, so that the rank computes what 1F1B's does; its collectives are 1F1B's.
TEST(ChakraTrace, ZeroBubbleWeightPassesAreComputeOfTheirOwn) {
  core::Plan base = split_plan();
  core::Plan zero_bubble = split_plan();
  zero_bubble.parallelism->schedule = core::PipelineScheduleKind::kZeroBubble;
  core::validate_plan(zero_bubble);
  core::ModelParallelWork work = core::model_parallel_work(zero_bubble);
  ASSERT_GT(work.layer_weight_flops, 0);
  ChakraProgram before = chakra_program(base), after = chakra_program(zero_bubble);
  for (int rank : {rank_of(0, 0, 0), rank_of(1, 7, 1)}) {
    SCOPED_TRACE(rank);
    int passes = 0;
    long ops_before = 0, ops_after = 0, nodes = 0;
    for (const core::ChakraNode& n : after.ranks[rank]) {
      ops_after += num_ops(n), ++nodes;
      if (n.name.find("weight pass") == std::string::npos) continue;
      ++passes;
      EXPECT_EQ(num_ops(n), std::llround(4 * work.layer_weight_flops));
      EXPECT_GT(n.duration_micros, 0u);
    }
    for (const core::ChakraNode& n : before.ranks[rank]) ops_before += num_ops(n);
    EXPECT_EQ(passes, 4);
    EXPECT_NEAR(ops_after, ops_before, nodes);  // each node's count rounded once
    auto c_before = collectives(before, rank), c_after = collectives(after, rank);
    EXPECT_EQ(c_after.size(), c_before.size());
    for (const auto& [kind, c] : c_before) EXPECT_EQ(c_after[kind].count, c.count);
  }
}

std::int64_t attribute(const core::ChakraNode& n, const std::string& name) {
  for (const auto& a : n.attributes)
    if (a.name == name) return a.integer;
  ADD_FAILURE() << n.name << " has no " << name;
  return -1;
}

core::Plan context_plan(const std::string& exchange, const std::string& recompute) {
  return testing::load_text(
      "chakra-context", testing::two_node_gpt("tensor: 2, context: 2, framework: any, recompute: " +
                                                  recompute + ", context_exchange: " + exchange,
                                              16, 16));
}

// Context parallelism (tensor 2 x context 2 x data 4; 8 layers; 4 micro-batches of 1). Ring: each
// layer's forward passes its key-value block to the other member and takes the other's (context
// - 1 = 1 step), its backward the block with its gradient (twice the bytes): 4 x 8 sends of each
// size a rank, every one paired with the other member's receive by source, destination and tag.
// Selective recomputation passes the blocks once more in backward: 64 single blocks. All-gather:
// both members' blocks gathered before each forward and backward, their gradient reduce-scattered
// after backward, over the context group of 2.
TEST(ChakraTrace, ContextParallelismPassesOrGathersKeysAndValues) {
  for (const char* recompute : {"none", "selective"}) {
    SCOPED_TRACE(recompute);
    core::Plan ring = context_plan("ring", recompute);
    long block = std::lround(core::model_parallel_work(ring).context_block_bytes);
    ChakraProgram program = chakra_program(ring);
    std::multiset<std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>> sent,
        received;
    std::map<long, int> rank0_sends;
    for (std::size_t r = 0; r < program.ranks.size(); ++r)
      for (const core::ChakraNode& n : program.ranks[r]) {
        bool send = n.type == core::ChakraNodeType::kSend;
        if (!send && n.type != core::ChakraNodeType::kReceive) continue;
        if (n.name.find("key-value") == std::string::npos) continue;
        auto key = std::make_tuple(attribute(n, "comm_src"), attribute(n, "comm_dst"),
                                   attribute(n, "comm_tag"), attribute(n, "comm_size"));
        (send ? sent : received).insert(key);
        if (send && r == 0) ++rank0_sends[static_cast<long>(attribute(n, "comm_size"))];
      }
    EXPECT_EQ(sent, received);
    int again = std::string(recompute) == "none" ? 0 : 32;
    EXPECT_EQ(rank0_sends, (std::map<long, int>{{block, 32 + again}, {2 * block, 32}}));
  }
  core::Plan gather = context_plan("allgather", "none");
  long blocks = 2 * std::lround(core::model_parallel_work(gather).context_block_bytes);
  auto c = collectives(chakra_program(gather), 0);
  EXPECT_EQ(c[core::ChakraCollective::kAllGather].count, 64);
  EXPECT_EQ(c[core::ChakraCollective::kAllGather].bytes, std::set<long>{blocks});
  EXPECT_EQ(c[core::ChakraCollective::kAllGather].members, std::set<std::size_t>{2});
  EXPECT_EQ(c[core::ChakraCollective::kReduceScatter].count, 32);
  EXPECT_EQ(c[core::ChakraCollective::kReduceScatter].members, std::set<std::size_t>{2});
}

void expect_chakra_refuses(const core::Plan& plan, const std::string& naming) {
  try {
    chakra_program(plan);
    FAIL() << naming << " written as traces";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--chakra"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(naming), std::string::npos) << e.what();
  }
}

TEST(ChakraTrace, WhatTheTracesCannotHoldIsRefusedNamingTheOption) {
  core::Plan plan = split_plan();
  plan.training.compression.kind = core::CompressionKind::kTopk;
  expect_chakra_refuses(plan, "compression");
  // DualPipe's mirrored stages; DualPipeV's pairs where experts overlap them (without experts its
  // passes run one after the other, and the traces hold it).
  std::string text = testing::two_node_gpt("pipeline: 2, schedule: dualpipe", 8, 16);
  expect_chakra_refuses(testing::load_text("chakra-dualpipe", text), "DualPipe's two copies");
  text.replace(text.find("schedule: dualpipe"), 18, "schedule: dualpipev");
  EXPECT_EQ(chakra_program(testing::load_text("chakra-dualpipev", text)).ranks.size(), 8u);
  std::string dense = "vocabulary: 32000 }";
  text.replace(text.find(dense), dense.size(),
               "vocabulary: 32000, moe: { experts: 8, top_k: 2 } }");
  text.replace(text.find("pipeline: 2"), 11, "pipeline: 2, expert: 4");
  expect_chakra_refuses(testing::load_text("chakra-dualpipev-experts", text), "overlapped pairs");
}

}  // namespace
}  // namespace scaleout::sim

// Model-parallel plans on SimGrid: the training program on the simulated fabric against the closed
// form where nothing contends, and the timeline it leaves.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "analytic/analytic.hpp"
#include "core/parallel/model_split.hpp"
#include "sim/simulator.hpp"
#include "sim/work_estimate.hpp"
#include "tests/core/plan_text.hpp"

namespace scaleout::sim {
namespace {

// Two nodes of 8 devices and a small GPT (testing::two_node_gpt).
std::string plan_text(const std::string& parallelism, int workers, int global_batch,
                      const std::string& nic = "100Gbps") {
  return testing::two_node_gpt(parallelism, workers, global_batch, nic);
}

struct Case {
  const char* name;
  std::string parallelism;
  int workers;
};

TEST(SimulateModelParallel, AgreesWithTheClosedFormWhereNothingContends) {
  // Each split keeps its tensor groups inside a node; stage transfers and data exchanges cross
  // links of their own, so the closed form's assumptions hold.
  const Case cases[] = {
      {"1f1b", "tensor: 2, pipeline: 4", 16},
      {"gpipe", "tensor: 2, pipeline: 4, schedule: gpipe", 16},
      {"interleaved", "tensor: 2, pipeline: 4, schedule: interleaved, virtual_stages: 2", 16},
      {"two-stage-wrap", "tensor: 2, pipeline: 2, schedule: interleaved, virtual_stages: 2", 16},
      {"zero3-full-recompute", "tensor: 4, pipeline: 2, recompute: full, zero: 3", 16},
      {"zero2", "tensor: 4, pipeline: 2, zero: 2", 16},
      {"zero3-fsdp", "tensor: 2, zero: 3, framework: fsdp, recompute: full", 16},
      {"deepspeed-blocking-sends", "tensor: 2, pipeline: 4, framework: deepspeed", 16},
      {"tensor-only", "tensor: 8", 16},
      {"pipeline-only", "pipeline: 8, microbatch: 2", 8},
  };
  for (const Case& c : cases) {
    core::Plan plan = testing::load_text(std::string("sim-mp-") + c.name,
                                         plan_text(c.parallelism, c.workers, 16));
    core::RunResult sim = simulate(plan), closed = predict_analytic(plan);
    ASSERT_TRUE(sim.model_parallel) << c.name;
    EXPECT_EQ(sim.engine, "sim");
    EXPECT_NEAR(sim.step_time_s / closed.step_time_s, 1.0, 0.01) << c.name;
    EXPECT_NEAR(sim.model_parallel->data_comm_s, closed.model_parallel->data_comm_s,
                0.05 * closed.model_parallel->data_comm_s + 1e-6)
        << c.name;
    EXPECT_NEAR(sim.model_parallel->tensor_comm_s, closed.model_parallel->tensor_comm_s,
                0.01 * closed.model_parallel->tensor_comm_s + 1e-9)
        << c.name;
  }
}

// The data group's exchange as the simulated program runs it, against a ring of the gradient
// worked out by hand (the comparison above passes an error both engines share).
TEST(SimulateModelParallel, TheDataExchangeIsARingOfTheGradient) {
  // Tensor 8 x data 2: each device keeps 8 layers x (12 h^2 + 13 h) / 8 + V h / 8 + s h =
  // 12,596,224 + 4,096,000 + 1,048,576 = 17,740,800 parameters (h 1024, V 32000, s 1024), 2 bytes
  // each (bf16) = 35,481,600 B. Each rank's data peer sits on the other node, and a node's 8 data
  // groups share its 100 Gb/s NIC: 1.5625 GB/s a group. A ring of 2 moves 2 (d-1)/d = 1 gradient in
  // 2 steps of 6 us (device link, NIC, NIC, device link): 35,481,600 / 1.5625e9 + 12 us =
  // 22.720224 ms.
  core::Plan tensor = testing::load_text("sim-mp-ring-tp", plan_text("tensor: 8", 16, 16));
  core::RunResult r = simulate(tensor);
  ASSERT_TRUE(r.model_parallel);
  EXPECT_NEAR(r.model_parallel->data_comm_s, 22.720224e-3, 1e-6 * 22.720224e-3);
  // Tensor 4 x pipeline 2 x data 2: stage 0 keeps 4 layers x (12 h^2 + 13 h) / 4 + V h / 4 + s h =
  // 12,596,224 + 8,192,000 + 1,048,576 = 21,836,800 parameters, the most, 43,673,600 B, or
  // 10,918,400 B a layer. ZeRO-3 gathers a layer at a time over the data group: data peers sit 4
  // ranks apart inside a node, each pair over its own 100 GB/s device links, so a gather (or a
  // reduce-scatter) of 2 is one step of half a layer: 5,459,200 / 100e9 + 2 us = 56.592 us. The
  // compute hides every gather but an op's first and every reduce-scatter but a backward's last;
  // a forward waits for one gather, a backward for two (full recomputation gathers again) and its
  // last reduce-scatter: 4 x 56.592 = 226.368 us a micro-batch, 8 micro-batches: 1,810.944 us.
  // Nothing is left to exchange once the pipeline drains.
  core::Plan zero3 = testing::load_text(
      "sim-mp-ring-zero3", plan_text("tensor: 4, pipeline: 2, recompute: full, zero: 3", 16, 16));
  r = simulate(zero3);
  ASSERT_TRUE(r.model_parallel);
  EXPECT_NEAR(r.model_parallel->data_comm_s, 1810.944e-6, 0.01 * 1810.944e-6);
  EXPECT_NEAR(predict_analytic(zero3).model_parallel->data_comm_s, 1810.944e-6, 1e-9);
}

// ZeRO-3 gathers and reduce-scatters every micro-batch (DeepSpeed's and FSDP's way), not once a
// step: where the data group's NIC is the bottleneck, four micro-batches expose four times the
// sharded exchanges of one.
TEST(SimulateModelParallel, ZeroThreeExchangesEveryMicroBatch) {
  auto data_comm = [](int global_batch, const char* engine) {
    core::Plan plan = testing::load_text(std::string("sim-mp-zero3-mb-") + engine,
                                         plan_text("tensor: 8, zero: 3", 16, global_batch));
    core::RunResult r = std::string(engine) == "sim" ? simulate(plan) : predict_analytic(plan);
    return r.model_parallel->data_comm_s;
  };
  for (const char* engine : {"analytic", "sim"}) {
    SCOPED_TRACE(engine);
    double one = data_comm(2, engine), four = data_comm(8, engine);
    EXPECT_GT(one, 0);
    EXPECT_NEAR(four / one, 4.0, 0.02);
  }
}

// The note that pipeline_comm_s is the closed form's belongs to plans with stage transfers only.
TEST(SimulateModelParallel, OnlyPipelinesSayTheirTransfersAreTheClosedForms) {
  auto says_so = [](const core::RunResult& r) {
    for (const auto& w : r.warnings)
      if (w.find("pipeline_comm_s is the closed form's") != std::string::npos) return true;
    return false;
  };
  core::Plan pipeline =
      testing::load_text("sim-mp-note-pp", plan_text("tensor: 2, pipeline: 4", 16, 16));
  core::Plan tensor = testing::load_text("sim-mp-note-tp", plan_text("tensor: 8", 16, 16));
  EXPECT_TRUE(says_so(simulate(pipeline)));
  EXPECT_FALSE(says_so(simulate(tensor)));
}

// The same plans on the A100 preset with no efficiency: compute from the device's figures
// (core/model/device_compute.hpp) reaches both engines the same way.
std::string on_a100_preset(std::string text) {
  auto swap = [&](const std::string& from, const std::string& to) {
    text.replace(text.find(from), from.size(), to);
  };
  swap("device: { name: X, flops: 100TFLOPS, memory: 80GB }", "device: { preset: a100-sxm4-80gb }");
  swap("  efficiency: 0.5\n", "");
  return text;
}

TEST(SimulateModelParallel, DeviceFiguresWithoutEfficiencyAgreeWithTheClosedForm) {
  const Case cases[] = {
      {"1f1b", "tensor: 2, pipeline: 4", 16},
      {"zero3-full-recompute", "tensor: 4, pipeline: 2, recompute: full, zero: 3", 16},
      {"selective", "tensor: 8, recompute: selective", 16},
  };
  for (const Case& c : cases) {
    core::Plan plan = testing::load_text(std::string("sim-mp-preset-") + c.name,
                                         on_a100_preset(plan_text(c.parallelism, c.workers, 16)));
    core::RunResult sim = simulate(plan), closed = predict_analytic(plan);
    ASSERT_TRUE(sim.model_parallel) << c.name;
    EXPECT_NEAR(sim.step_time_s / closed.step_time_s, 1.0, 0.02) << c.name;
    EXPECT_LT(closed.model_parallel->mfu, 0.859) << c.name;  // under the matmul ceiling
  }
  // Without parallelism: the data-parallel engines take the model's share of the peak.
  std::string dp = on_a100_preset(plan_text("tensor: 1", 16, 16));
  dp.replace(dp.find("parallelism: { tensor: 1 }\n"), 27, "");
  dp.replace(dp.find(", global_batch: 16"), 18, ", batch_per_worker: 1");
  core::Plan plan = testing::load_text("sim-dp-preset", dp);
  EXPECT_NEAR(simulate(plan).step_time_s / predict_analytic(plan).step_time_s, 1.0, 0.02);
}

// A mixture of experts (one MoE layer every 2 of the 8, 8 experts of the dense MLP's width, 2 a
// token, all on every device) reaches both engines through the same work: its gradient holds every
// expert, its model FLOPs the active ones only, and the engines agree as for a dense model.
TEST(SimulateModelParallel, AMixtureOfExpertsAgreesWithTheClosedForm) {
  std::string text = on_a100_preset(plan_text("tensor: 2, pipeline: 4", 16, 16));
  std::string dense_model = "vocabulary: 32000 }";
  std::string moe_model = text;
  moe_model.replace(moe_model.find(dense_model), dense_model.size(),
                    "vocabulary: 32000, moe: { experts: 8, top_k: 2, every: 2 } }");
  core::Plan dense = testing::load_text("sim-moe-dense", text);
  core::Plan moe = testing::load_text("sim-moe", moe_model);
  core::RunResult sim = simulate(moe), closed = predict_analytic(moe);
  ASSERT_TRUE(sim.model_parallel && closed.model_parallel);
  EXPECT_NEAR(sim.step_time_s / closed.step_time_s, 1.0, 0.02);
  // 4 of the 8 layers hold 7 more MLPs of 2 x 1024 x 4096 + 4096 + 1024 weights and a router of
  // 1024 x 8: 4 x (7 x 8,393,728 + 8,192) = 235,057,152 parameters more than the dense model.
  core::RunResult base = predict_analytic(dense);
  EXPECT_DOUBLE_EQ(closed.model_parallel->parameters - base.model_parallel->parameters,
                   235057152.0);
  // A token passes through 2 of them, and the router: 4 x (8,393,728 + 8,192) = 33,607,680 more.
  EXPECT_DOUBLE_EQ(closed.model_parallel->active_parameters - base.model_parallel->parameters,
                   33607680.0);
  EXPECT_GT(closed.step_time_s, base.step_time_s);
}

// Expert parallelism 4 inside a node (2 stages of 8 ranks, data 8 = expert 4 x data 2): each MoE
// layer's dispatch and combine run as pairwise all-to-alls. By hand: a micro-batch's 1,024 tokens
// x top_k 2 x 1,024 x 2 bytes = 4,194,304 bytes a device, in 3 steps of a quarter each through
// the node's switch (two links of 1 us) at 2 us + 1,048,576 B / 100 GB/s = 12.48576 us; 2 MoE
// layers a stage, 2 all-to-alls each way, 2 micro-batches: 2 x 2 x 2 x 2 x 3 x 12.48576 us =
// 599.31648 us on each stage.
TEST(SimulateModelParallel, ExpertParallelAllToAllsAgreeWithTheClosedForm) {
  std::string text = plan_text("tensor: 1, pipeline: 2, expert: 4", 16, 16);
  std::string dense_model = "vocabulary: 32000 }";
  text.replace(text.find(dense_model), dense_model.size(),
               "vocabulary: 32000, moe: { experts: 8, top_k: 2, every: 2 } }");
  core::Plan plan = testing::load_text("sim-ep", text);
  core::RunResult closed = predict_analytic(plan), sim = simulate(plan);
  ASSERT_TRUE(closed.model_parallel && sim.model_parallel);
  EXPECT_NEAR(closed.model_parallel->expert_comm_s, 599.31648e-6, 1e-12);
  EXPECT_NEAR(sim.model_parallel->expert_comm_s / closed.model_parallel->expert_comm_s, 1.0, 0.02);
  EXPECT_NEAR(sim.step_time_s / closed.step_time_s, 1.0, 0.02);
  EXPECT_EQ(closed.model_parallel->expert, 4);
  // Across the two nodes: tensor 2, expert 8 over ranks 0, 2, ..., 14, pairs through the 100 Gb/s
  // NICs that the node's crossing devices share. The closed form's lockstep steps are a lower
  // bound there (SimGrid's steps drift apart: 1.04x here, run step by step; coalesced, its data
  // rings ended apart and charged the next step's all-to-alls for the wait: 1.59x), and its result
  // says so; the step, where the all-to-alls are a small part, still agrees.
  std::string across = plan_text("tensor: 2, expert: 8, sequence_parallel: true", 16, 16);
  across.replace(across.find(dense_model), dense_model.size(),
                 "vocabulary: 32000, moe: { experts: 8, top_k: 2, every: 2 } }");
  core::Plan wide = testing::load_text("sim-ep-across", across);
  core::RunResult wide_closed = predict_analytic(wide), wide_sim = simulate(wide);
  double ratio = wide_sim.model_parallel->expert_comm_s / wide_closed.model_parallel->expert_comm_s;
  EXPECT_GT(ratio, 1.0);
  EXPECT_LT(ratio, 1.1);
  bool warned = false;
  for (const auto& w : wide_closed.warnings) warned |= w.find("lockstep") != std::string::npos;
  EXPECT_TRUE(warned);
  for (const auto& w : closed.warnings) EXPECT_EQ(w.find("lockstep"), std::string::npos) << w;
  EXPECT_NEAR(wide_sim.step_time_s / wide_closed.step_time_s, 1.0, 0.02);
}

// Devices whose own links (160 GB/s) are slower than their node's NICs together (8 x 50 GB/s):
// the crossing transfers of a step share the NICs, each device keeps its own link. Pairwise over
// 16 ranks of two nodes, 16 segments of 262,144 bytes: in step k (and 16 - k) each node has k
// devices crossing, each at min(160, 400 / k) GB/s; in step 8 all 8 at 50 GB/s; 6 us of path
// latency. 2 MoE layers x 2 all-to-alls each way, one micro-batch. SimGrid agrees.
TEST(SimulateModelParallel, CrossingTransfersShareTheNodesNicsNotTheirOwnLinks) {
  std::string text = testing::two_node_gpt("expert: 16", 16, 16);
  text.replace(text.find("layers: 8"), 9, "layers: 2");
  text.replace(text.find("vocabulary: 32000"), 17, "vocabulary: 8, moe: { experts: 16, top_k: 2 }");
  text.replace(text.find("bandwidth: 100GB/s"), 18, "bandwidth: 160GB/s");
  text.replace(text.find("bandwidth: 100Gbps, latency: 2us }"), 34,
               "bandwidth: 50GB/s, latency: 2us }\n  nics_per_node: 8");
  core::Plan plan = testing::load_text("sim-ep-own-links", text);
  double segment = 262144, step8 = 6e-6 + segment / 50e9, steps = step8;
  for (int k = 1; k <= 7; ++k) steps += 2 * (6e-6 + segment / std::min(160e9, 400e9 / k));
  core::RunResult closed = predict_analytic(plan), sim = simulate(plan);
  ASSERT_TRUE(closed.model_parallel && sim.model_parallel);
  EXPECT_NEAR(closed.model_parallel->expert_comm_s, 8 * steps, 1e-12);
  EXPECT_NEAR(sim.model_parallel->expert_comm_s / closed.model_parallel->expert_comm_s, 1.0, 0.03);
}

// The hierarchical all-to-all (16 experts over all 16 ranks of two nodes, one micro-batch): each
// device's 4,194,304 bytes go as 16 segments of 262,144. Inside the node, 7 steps of the 2
// segments for one place (one a node) at 2 us + 524,288 B / 100 GB/s = 7.24288 us; across, one
// step of the node's 8 segments for the same place on the other node, 2,097,152 B through the
// 100 Gb/s NICs that the node's 8 devices share (1.5625 GB/s each): 1,342.17728 us, plus the path's
// latency (two links of 1 us inside the nodes and two NICs of 2 us: 6 us). 2 MoE layers x 2
// all-to-alls each way: 8 x (7 x 7.24288 + 1,348.17728) us = 11,191.98 us. Inside one node the
// two exchanges are the same one; SimGrid agrees with the closed form either way. One step: in a
// second, the data ring's ranks, which end apart, would charge their wait to its all-to-alls.
TEST(SimulateModelParallel, HierarchicalAllToAllsGoInsideTheNodeFirst) {
  auto plan_with = [](const std::string& name, const std::string& parallelism) {
    std::string text = plan_text(parallelism, 16, 16);
    std::string dense_model = "vocabulary: 32000 }";
    text.replace(text.find(dense_model), dense_model.size(),
                 "vocabulary: 32000, moe: { experts: 16, top_k: 2, every: 4 } }");
    text.replace(text.find("steps: 2"), 8, "steps: 1");
    return testing::load_text(name, text);
  };
  core::Plan across = plan_with("sim-ep-hier", "expert: 16, expert_alltoall: hierarchical");
  core::RunResult closed = predict_analytic(across), sim = simulate(across);
  ASSERT_TRUE(closed.model_parallel && sim.model_parallel);
  EXPECT_EQ(closed.model_parallel->expert_alltoall, "hierarchical");
  EXPECT_NEAR(closed.model_parallel->expert_comm_s, 8 * (7 * 7.24288e-6 + 1348.17728e-6), 1e-9);
  EXPECT_NEAR(sim.model_parallel->expert_comm_s / closed.model_parallel->expert_comm_s, 1.0, 0.02);
  EXPECT_NEAR(sim.step_time_s / closed.step_time_s, 1.0, 0.02);
  // Eight ranks of one node (pipeline 2: a stage a node): nothing crosses, nothing is relayed.
  core::Plan pairwise = plan_with("sim-ep-node-pair", "pipeline: 2, expert: 8");
  core::Plan hierarchical =
      plan_with("sim-ep-node-hier", "pipeline: 2, expert: 8, expert_alltoall: hierarchical");
  EXPECT_DOUBLE_EQ(predict_analytic(hierarchical).model_parallel->expert_comm_s,
                   predict_analytic(pairwise).model_parallel->expert_comm_s);
  EXPECT_NEAR(simulate(hierarchical).model_parallel->expert_comm_s /
                  simulate(pairwise).model_parallel->expert_comm_s,
              1.0, 1e-9);
}

// The deduplicated all-to-all on the hierarchical test's plan: inside the node as before; across,
// of the node's 2,097,152 B for the other node only its distinct tokens, the 23/30 of the copies
// that reach it (a token's 2 of 16 experts miss the other node's 8 with chance C(8,2) / C(16,2) =
// 28/120, and send it 2/2 copies on average). To the experts in FP8 (1.03125 B an element where
// 2 were): both steps' bytes x 33/64. 2 MoE layers x 2 all-to-alls each way, half to the experts.
TEST(SimulateModelParallel, DeduplicatedAllToAllsSendEachTokenToANodeOnce) {
  std::string text = plan_text(
      "expert: 16, expert_alltoall: deduplicated, expert_dispatch_precision: fp8", 16, 16);
  std::string dense_model = "vocabulary: 32000 }";
  text.replace(text.find(dense_model), dense_model.size(),
               "vocabulary: 32000, moe: { experts: 16, top_k: 2, every: 4 } }");
  text.replace(text.find("steps: 2"), 8, "steps: 1");
  core::Plan plan = testing::load_text("sim-ep-dedup", text);
  double across = 2097152.0 * 23 / 30, fp8 = 33.0 / 64;
  double back = 7 * (2e-6 + 524288 / 100e9) + 6e-6 + across / 1.5625e9;
  double to = 7 * (2e-6 + fp8 * 524288 / 100e9) + 6e-6 + fp8 * across / 1.5625e9;
  core::RunResult closed = predict_analytic(plan), sim = simulate(plan);
  ASSERT_TRUE(closed.model_parallel && sim.model_parallel);
  EXPECT_EQ(closed.model_parallel->expert_alltoall, "deduplicated");
  EXPECT_NEAR(closed.model_parallel->expert_comm_s, 4 * (to + back), 1e-9);
  EXPECT_NEAR(sim.model_parallel->expert_comm_s / closed.model_parallel->expert_comm_s, 1.0, 0.02);
  EXPECT_NEAR(sim.step_time_s / closed.step_time_s, 1.0, 0.02);
}

// Uneven stages: the 8 layers as 1, 3, 3, 1 over 4 stages (first and last one layer each, the two
// between 3 each) against 2 each. With the 32,000-word output layer (2 s h V = 67 GFLOP forward,
// more than two layers' 2 x 30) the last stage is the busiest either way: uneven it holds 1 layer
// instead of 2, so its tensor all-reduces take half as long and the step is shorter, which is why
// Megatron-LM takes layers off the last stage. With 1,000 words a stage between is the busiest:
// 3 layers instead of 2. SimGrid and the closed form agree on the step.
TEST(SimulateModelParallel, UnevenStagesAgreeWithTheClosedForm) {
  auto tensor_comm = [](const core::Plan& p) {
    return predict_analytic(p).model_parallel->tensor_comm_s;
  };
  for (const char* vocabulary : {"32000", "1000"}) {
    auto text = [&](const std::string& parallelism) {
      std::string t = plan_text(parallelism, 16, 16);
      t.replace(t.find("vocabulary: 32000"), 17, std::string("vocabulary: ") + vocabulary);
      return t;
    };
    core::Plan even = testing::load_text("sim-even", text("tensor: 2, pipeline: 4"));
    core::Plan uneven = testing::load_text(
        "sim-uneven", text("tensor: 2, pipeline: 4, first_stage_layers: 1, last_stage_layers: 1"));
    core::ModelSplit s = core::model_split(uneven);
    EXPECT_EQ(core::stage_layers(s, 0), 1);
    EXPECT_EQ(core::stage_layers(s, 1), 3);
    EXPECT_EQ(core::stage_layers(s, 3), 1);
    EXPECT_EQ(core::chunk_layers(s, 1, 0), 3);
    core::RunResult closed = predict_analytic(uneven), sim = simulate(uneven);
    EXPECT_NEAR(sim.step_time_s / closed.step_time_s, 1.0, 0.02) << vocabulary;
    bool big_output = std::string(vocabulary) == "32000";
    EXPECT_NEAR(tensor_comm(uneven) / tensor_comm(even), big_output ? 0.5 : 1.5, 1e-12)
        << vocabulary;
    if (big_output) EXPECT_LT(closed.step_time_s, predict_analytic(even).step_time_s);
  }
}

// Stages of unequal layers against the even split: the busiest stage's tensor time is
// `tensor_ratio` of the even plan's in the closed form, and SimGrid's step is within 2 % of the
// closed form's, which is returned.
double expect_tensor_share_and_engines_agree(const core::Plan& plan, const core::Plan& even,
                                             double tensor_ratio) {
  core::RunResult closed = predict_analytic(plan), sim = simulate(plan);
  EXPECT_TRUE(closed.model_parallel && sim.model_parallel);
  if (!closed.model_parallel) return closed.step_time_s;
  EXPECT_NEAR(
      closed.model_parallel->tensor_comm_s / predict_analytic(even).model_parallel->tensor_comm_s,
      tensor_ratio, 1e-12);
  EXPECT_NEAR(sim.step_time_s / closed.step_time_s, 1.0, 0.02);
  return closed.step_time_s;
}

// Uneven stages with virtual stages, by Megatron-Core's rule (each chunk of a stage holds an equal
// share of its layers): the 8 layers as 2 on the first stage and 6 on the last, in 2 chunks each,
// so 1 and 3 layers a chunk where the even split has 2. The last stage, the busiest either way
// (it holds the output layer), runs 3 layers' tensor all-reduces a chunk instead of 2.
TEST(SimulateModelParallel, UnevenStagesSplitOverVirtualStages) {
  std::string interleaved = "tensor: 2, pipeline: 2, schedule: interleaved, virtual_stages: 2";
  core::Plan even = testing::load_text("sim-even-vp", plan_text(interleaved, 16, 16));
  core::Plan uneven = testing::load_text(
      "sim-uneven-vp",
      plan_text(interleaved + ", first_stage_layers: 2, last_stage_layers: 6", 16, 16));
  core::ModelSplit s = core::model_split(uneven);
  EXPECT_EQ(core::chunk_layers(s, 0, 1), 1);
  EXPECT_EQ(core::chunk_layers(s, 1, 0), 3);
  EXPECT_EQ(core::stage_layers(s, 0), 2);
  EXPECT_EQ(core::stage_layers(s, 1), 6);
  double closed = expect_tensor_share_and_engines_agree(uneven, even, 1.5);
  EXPECT_GT(closed, predict_analytic(even).step_time_s);
}

// The embedding and the loss counted as layers (Llama 3 405B's split, Megatron-Core's
// account-for flags): 14 layers and those two over 2 stages x 4 chunks, 2 a chunk, so the first
// stage's first chunk and the last stage's last hold 1 layer and each stage 7. The busiest stage
// (the last, with the output layer) runs 7 layers' tensor all-reduces a micro-batch where the 16
// layers of the same width split evenly run 8.
TEST(SimulateModelParallel, EmbeddingAndLossCountedAsLayers) {
  std::string interleaved = "tensor: 2, pipeline: 2, schedule: interleaved, virtual_stages: 4";
  auto with_layers = [](std::string text, int layers) {
    return text.replace(text.find("layers: 8"), 9, "layers: " + std::to_string(layers));
  };
  core::Plan even =
      testing::load_text("sim-even-16", with_layers(plan_text(interleaved, 16, 16), 16));
  core::Plan counted = testing::load_text(
      "sim-counted",
      with_layers(plan_text(interleaved + ", account_for_embedding_in_pipeline_split: true, "
                                          "account_for_loss_in_pipeline_split: true",
                            16, 16),
                  14));
  core::ModelSplit s = core::model_split(counted);
  EXPECT_EQ(core::chunk_layers(s, 0, 0), 1);
  EXPECT_EQ(core::chunk_layers(s, 0, 1), 2);
  EXPECT_EQ(core::chunk_layers(s, 1, 2), 2);
  EXPECT_EQ(core::chunk_layers(s, 1, 3), 1);
  EXPECT_EQ(core::stage_layers(s, 0), 7);
  EXPECT_EQ(core::stage_layers(s, 1), 7);
  double closed = expect_tensor_share_and_engines_agree(counted, even, 7.0 / 8.0);
  EXPECT_LT(closed, predict_analytic(even).step_time_s);
}

// The simulator lets go of sends their receivers took and makes each stage its neighbours'
// permanent receiver instead of posting receives ahead (sim/sim_fabric.hpp): the answer must be
// the one with every transfer held until waited for, to the last bit of time and byte, where
// transfers contend (a 10 Gb/s NIC) and where they do not.
TEST(SimulateModelParallel, LettingGoOfTakenSendsKeepsTheAnswer) {
  const Case cases[] = {
      {"1f1b", "tensor: 2, pipeline: 4", 16},
      {"gpipe", "tensor: 2, pipeline: 4, schedule: gpipe", 16},
      {"interleaved", "tensor: 2, pipeline: 4, schedule: interleaved, virtual_stages: 2", 16},
      {"two-stage-wrap", "tensor: 2, pipeline: 2, schedule: interleaved, virtual_stages: 2", 16},
      {"zero3", "tensor: 4, pipeline: 2, zero: 3", 16},
  };
  for (const std::string nic : {"100Gbps", "10Gbps"})
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(c.name) + " " + nic);
      core::Plan plan = testing::load_text(std::string("sim-mp-pending-") + c.name,
                                           plan_text(c.parallelism, c.workers, 16, nic));
      core::RunResult fast = simulate(plan);
      SimOptions holding;
      holding.shortcuts.release_taken = false;
      core::RunResult held = simulate(plan, holding);
      EXPECT_GT(fast.step_time_s, 0);
      EXPECT_NEAR(fast.step_time_s, held.step_time_s, 1e-12 * held.step_time_s);
      ASSERT_EQ(fast.links.size(), held.links.size());
      for (std::size_t i = 0; i < held.links.size(); ++i)
        EXPECT_DOUBLE_EQ(fast.links[i].bytes, held.links[i].bytes) << held.links[i].name;
    }
}

TEST(SimulateModelParallel, FreeNetworkTakesMPlusPMinusOneSlots) {
  // 4 stages of 2 layers, 16 micro-batches; a network too fast to matter. The output layer (a
  // vocabulary of 32000) makes the last stage the slowest: the bound uses its slot.
  core::Plan plan = testing::load_text("sim-mp-free", plan_text("pipeline: 4", 4, 16, "1e9GB/s"));
  core::RunResult r = simulate(plan);
  double s = 1024, h = 1024, V = 32000, rate = 0.5 * 100e12;
  double layer = 24 * s * h * h * (1 + s / (6 * h)), logits = 2 * s * h * V;
  double slot = 3 * (2 * layer + logits) / rate;  // the last stage's forward + backward
  double other = 3 * 2 * layer / rate;
  // m slots of the last stage, and the other stages' forwards to fill it and backwards to drain.
  EXPECT_NEAR(r.step_time_s / (16 * slot + 3 * other), 1.0, 0.01);
}

TEST(SimulateModelParallel, TraceShowsEachStagesForwardsAndBackwards) {
  core::Plan plan = testing::load_text("sim-mp-trace", plan_text("tensor: 2, pipeline: 4", 16, 16));
  testing::TempDir dir("sim-mp-trace-out");
  std::string path = (dir.path() / "trace.json").string();
  SimOptions options;
  options.trace_path = path;
  simulate(plan, options);
  nlohmann::json trace = nlohmann::json::parse(std::ifstream(path));
  std::set<std::string> names;
  int forwards = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e.value("ph", "") != "X") continue;
    names.insert(e.value("name", ""));
    forwards += e.value("cat", "") == "forward";
  }
  EXPECT_TRUE(names.count("forward 0") && names.count("backward 7"));
  EXPECT_EQ(forwards, 16 * 8 * 2);  // 16 ranks, 8 micro-batches, 2 steps
}

TEST(SimulateModelParallel, WorkEstimateCountsTheMessagesSent) {
  core::Plan plan =
      testing::load_text("sim-mp-estimate", plan_text("tensor: 2, pipeline: 4", 16, 16));
  double estimate = estimate_work(plan, Fidelity::kFast).messages;
  ProgressReport last;
  simulate(plan, {}, [&last](const ProgressReport& p) { last = p; });
  EXPECT_GT(last.messages, 0);
  EXPECT_NEAR(last.messages / estimate, 1.0, 0.2);
}

// Where compute comes from the device's figures, the optimizer's update follows the exchange: a
// memory-bound pass over the rank's parameters, 30 bytes each (fp32 weight, gradient and two
// moments read; weight and moments written; the 16-bit copy written). Two layers of hidden 1024,
// a vocabulary of 1,000 and 1,024 learned positions on one device: 2 x (12 h^2 + 13 h) + V h + s h
// = 25,192,448 + 1,024,000 + 1,048,576 = 27,265,024 parameters, 817.95072 us at 1,000 GB/s (no
// kernel gap). ZeRO-1 over a data group of 2 updates half of them: 408.97536 us. Nothing else
// changes between the two, so each engine's steps differ by 408.97536 us.
TEST(ModelParallelOptimizer, TheUpdateOfTheRanksShardFollowsTheExchange) {
  auto text = [](int zero) {
    return std::string(
               "cluster:\n  name: c\n  devices_per_node: 8\n"
               "  device: { name: X, flops: 100TFLOPS, memory: 80GB, memory_bandwidth: 1000GB/s,"
               " multiprocessors: 100, matmul_ceiling: 0.8, kernel_gap: 0s }\n"
               "  intra_node: { bandwidth: 100GB/s, latency: 0s }\n"
               "  nic: { bandwidth: 100GB/s, latency: 0s }\n"
               "  network_model: cm02\n"
               "workload:\n  name: gpt\n"
               "  transformer: { layers: 2, hidden: 1024, heads: 16, sequence: 1024, "
               "vocabulary: 1000 }\n"
               "parallelism: { zero: ") +
           std::to_string(zero) +
           " }\nstrategy: { kind: ring }\ntraining: { workers: 2, global_batch: 4 }\n";
  };
  core::Plan zero0 = testing::load_text("sim-mp-optimizer-0", text(0));
  core::Plan zero1 = testing::load_text("sim-mp-optimizer-1", text(1));
  const double half = 408.97536e-6;
  core::RunResult closed0 = predict_analytic(zero0), closed1 = predict_analytic(zero1);
  EXPECT_NEAR(closed0.step_time_s - closed1.step_time_s, half, 1e-12);
  EXPECT_NEAR(closed0.phases.compute_s - closed1.phases.compute_s, half, 1e-12);
  core::RunResult sim0 = simulate(zero0), sim1 = simulate(zero1);
  EXPECT_NEAR(sim0.step_time_s - sim1.step_time_s, half, 1e-9);
  EXPECT_NEAR(sim0.step_time_s, closed0.step_time_s, 1e-3 * closed0.step_time_s);
}

}  // namespace
}  // namespace scaleout::sim

// The search over splits: what it ranks first is not beaten by any split it evaluated, nothing it
// lists exceeds the device's memory, and what it leaves out is counted.
#include "explore/split_search.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "analytic/analytic.hpp"
#include "core/model/model_memory.hpp"
#include "core/parallel/model_split.hpp"
#include "core/parallel/pipeline_schedule.hpp"
#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"
#include "tests/core/plan_text.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::sim {
namespace {

core::Plan small_plan(const std::string& memory) {
  return testing::small_transformer_plan("split-search-" + memory, memory);
}

TEST(SplitSearch, NoEvaluatedSplitBeatsTheFirst) {
  core::Plan plan = small_plan("16GB");
  SplitSearchOptions options;
  options.top = 1000000;  // every split that fits
  SplitSearch all = search_splits(plan, options);
  ASSERT_FALSE(all.best.empty());
  EXPECT_EQ(static_cast<long>(all.best.size()), all.evaluated);
  double first = all.best.front().result.step_time_s;
  for (const auto& c : all.best) {
    // Each listed split predicts the same step on its own, fits, and is no faster than the first.
    EXPECT_NEAR(predict_analytic(c.plan).step_time_s, c.result.step_time_s, 1e-12);
    EXPECT_EQ(core::does_not_fit(c.plan), "");
    EXPECT_GE(c.result.step_time_s, first);
  }
  // The top 3 are the first 3 of everything.
  options.top = 3;
  SplitSearch top = search_splits(plan, options);
  ASSERT_EQ(top.best.size(), 3u);
  for (int i = 0; i < 3; ++i)
    EXPECT_DOUBLE_EQ(top.best[i].result.step_time_s, all.best[i].result.step_time_s);
  EXPECT_FALSE(top.best[0].bottleneck.empty());
}

// A split as the search writes it: tensor, pipeline, micro-batch, schedule, virtual stages,
// recompute, ZeRO stage, sequence parallelism.
using Split = std::tuple<int, int, int, int, int, int, int, bool>;

Split split_of(const core::Parallelism& p) {
  return {p.tensor,         p.pipeline,
          p.microbatch,     static_cast<int>(p.schedule),
          p.virtual_stages, static_cast<int>(p.recompute),
          p.zero,           p.sequence_parallel};
}

std::string describe(const Split& s) {
  auto [t, p, mb, schedule, v, recompute, zero, sp] = s;
  return "t" + std::to_string(t) + " p" + std::to_string(p) + " mb" + std::to_string(mb) + " " +
         core::schedule_name(static_cast<core::PipelineScheduleKind>(schedule)) +
         (v > 1 ? " v" + std::to_string(v) : "") + " recompute " +
         core::recompute_name(static_cast<core::Recompute>(recompute)) + " zero " +
         std::to_string(zero) + (sp ? " sp" : "");
}

// Every split the search documents (explore/split_search.hpp, docs/model-parallelism.md "Which
// split"), written out for the small plan: 8 layers, 16 heads, 8-device nodes, 32 workers, 64
// sequences an iteration. Tensor degrees divide the heads and a node: 1, 2, 4, 8; pipeline stages
// divide the layers: 1, 2, 4, 8; t x p must divide the 32 workers (so not 8 x 8), data d =
// 32 / (t p), a replica's batch R = 64 / d = 2 t p; micro-batches b in powers of two dividing R,
// m = R / b of them; 1F1B, and interleaved with every chunk count v > 1 dividing a stage's 8 / p
// layers (p 2: v 2 or 4; p 4: v 2; p 8: none) when p divides m; recompute none, selective or
// full; ZeRO 0-3; sequence parallelism on and off. (Not in the documents, but skipped as they
// change nothing: ZeRO above 0 without a data group, d = 1; sequence parallelism without a tensor
// group, t = 1.) Per (t, p), the sum over b of schedules x 3 x ZeRO stages x (1 or 2):
//   t1: p1 2 b x 12 = 24; p2 (m 4,2,1: 3+3+1) x 12 = 84; p4 (m 8..1: 2+2+1+1) x 12 = 72;
//       p8 5 b x 12 = 60
//   t2: p1 3 b x 24 = 72; p2 (3+3+3+1) x 24 = 240; p4 (2+2+2+1+1) x 24 = 192; p8 6 b x 24 = 144
//   t4: p1 4 b x 24 = 96; p2 (4 x 3 + 1) x 24 = 312; p4 (4 x 2 + 1 + 1) x 24 = 240;
//       p8 (d 1) 7 b x 3 x 2 = 42
//   t8: p1 5 b x 24 = 120; p2 (5 x 3 + 1) x 24 = 384; p4 (d 1: 5 x 2 + 1 + 1) x 3 x 2 = 72
// 2,154 in all; 846 of them interleaved, 510 ZeRO-3, 957 sequence-parallel.
std::set<Split> documented_splits() {
  std::set<Split> out;
  const int interleaved = static_cast<int>(core::PipelineScheduleKind::kInterleaved);
  const int one_f_one_b = static_cast<int>(core::PipelineScheduleKind::kOneFOneB);
  for (int t : {1, 2, 4, 8})
    for (int p : {1, 2, 4, 8}) {
      if (32 % (t * p) != 0) continue;
      int d = 32 / (t * p), replica = 64 / d;
      for (int b = 1; b <= replica; b *= 2) {
        int m = replica / b;
        std::vector<std::pair<int, int>> schedules = {{one_f_one_b, 1}};
        if (p > 1 && m % p == 0)
          for (int v = 2; v <= 8 / p; ++v)
            if ((8 / p) % v == 0) schedules.push_back({interleaved, v});
        for (auto [schedule, v] : schedules)
          for (int recompute = 0; recompute < 3; ++recompute)
            for (int zero = 0; zero <= (d > 1 ? 3 : 0); ++zero)
              for (bool sp : {false, true})
                if (!sp || t > 1) out.insert({t, p, b, schedule, v, recompute, zero, sp});
      }
    }
  return out;
}

// Under failure rates the search ranks by step over goodput. Checkpointing every step through
// each node's 100 Gb/s NIC (the storage is fast), the split with the fastest step is not the first:
// one whose checkpoint stalls less, though its step is slower, keeps more of the wall time.
TEST(SplitSearch, FailureRatesRankByGoodput) {
  core::Plan plan = small_plan("80GB");
  plan.cluster.storage.write_bandwidth = 1e12;
  plan.cluster.storage.read_bandwidth = 1e12;
  plan.resilience.checkpoint_every = 1;
  plan.resilience.restart_time = 600;
  plan.reliability = core::Reliability{};
  plan.reliability->node_mtbf = 30 * 86400.0;
  plan.reliability->train_steps = 1e5;
  core::validate_plan(plan);
  SplitSearchOptions every;
  every.top = 1000000;
  SplitSearch all = search_splits(plan, every);
  ASSERT_GT(all.best.size(), 1u);
  for (std::size_t i = 1; i < all.best.size(); ++i) {
    const core::RunResult& a = all.best[i - 1].result;
    const core::RunResult& b = all.best[i].result;
    ASSERT_TRUE(b.reliability.has_value());
    EXPECT_LE(a.step_time_s / a.reliability->goodput,
              b.step_time_s / b.reliability->goodput * (1 + 1e-9))
        << i;
  }
  auto fastest = std::min_element(
      all.best.begin(), all.best.end(),
      [](const auto& x, const auto& y) { return x.result.step_time_s < y.result.step_time_s; });
  const SplitCandidate& first = all.best.front();
  EXPECT_GT(first.result.step_time_s, fastest->result.step_time_s);
  EXPECT_GT(first.result.reliability->goodput, fastest->result.reliability->goodput);
  // Its checkpoint stalls less: wider tensor groups write smaller shards, from every node.
  EXPECT_LT(first.result.reliability->checkpoint_cost_s,
            fastest->result.reliability->checkpoint_cost_s);
}

TEST(SplitSearch, TriesEverySplitItDocuments) {
  std::set<Split> expected = documented_splits();
  auto count = [](const std::set<Split>& splits, auto&& which) {
    return std::count_if(splits.begin(), splits.end(), which);
  };
  auto is_interleaved = [](const Split& s) {
    return std::get<3>(s) == static_cast<int>(core::PipelineScheduleKind::kInterleaved);
  };
  auto is_zero3 = [](const Split& s) { return std::get<6>(s) == 3; };
  auto is_sp = [](const Split& s) { return std::get<7>(s); };
  ASSERT_EQ(expected.size(), 2154u);  // the enumeration above against the hand count
  ASSERT_EQ(count(expected, is_interleaved), 846);
  ASSERT_EQ(count(expected, is_zero3), 510);
  ASSERT_EQ(count(expected, is_sp), 957);

  // 80 GB holds every split of this model: each is evaluated and listed.
  SplitSearchOptions options;
  options.top = 1000000;
  options.framework = core::Framework::kAny;  // every combination, whoever runs it
  SplitSearch all = search_splits(small_plan("80GB"), options);
  EXPECT_EQ(all.evaluated, 2154);
  EXPECT_TRUE(all.dropped.empty());
  std::set<Split> found;
  for (const auto& c : all.best) {
    ASSERT_TRUE(c.plan.parallelism);
    found.insert(split_of(*c.plan.parallelism));
  }
  EXPECT_EQ(found.size(), all.best.size()) << "a split listed twice";
  int shown = 0;
  for (const Split& s : expected)
    if (!found.count(s) && shown++ < 10) ADD_FAILURE() << "not tried: " << describe(s);
  for (const Split& s : found)
    if (!expected.count(s) && shown++ < 20) ADD_FAILURE() << "not documented: " << describe(s);
  EXPECT_EQ(count(found, is_interleaved), 846);
  EXPECT_EQ(count(found, is_zero3), 510);
  EXPECT_EQ(count(found, is_sp), 957);
}

std::set<Split> found_splits(const SplitSearch& s) {
  std::set<Split> found;
  for (const auto& c : s.best) found.insert(split_of(*c.plan.parallelism));
  return found;
}

std::set<Split> only(const std::set<Split>& splits, const std::function<bool(const Split&)>& keep) {
  std::set<Split> out;
  for (const Split& s : splits)
    if (keep(s)) out.insert(s);
  return out;
}

// Each framework's splits, filtered here from the documented ones by the frameworks' own rules:
// Megatron-LM shards optimizer states only (ZeRO 0-1) and has no GPipe; DeepSpeed's pipeline
// engine runs 1F1B without interleaving and refuses ZeRO-2/3 with stages; FSDP has no stages and
// no ZeRO-1. The search proposes exactly those and counts the rest as not run by the framework.
TEST(SplitSearch, ProposesOnlyWhatTheFrameworkRuns) {
  const std::set<Split> every = documented_splits();
  const int one_f_one_b = static_cast<int>(core::PipelineScheduleKind::kOneFOneB);
  struct Case {
    core::Framework framework;
    std::string dropped_as;
    std::function<bool(const Split&)> runs;
  };
  std::vector<Case> cases = {
      {core::Framework::kMegatron, "not run by Megatron-LM",
       [](const Split& s) { return std::get<6>(s) <= 1; }},
      {core::Framework::kDeepSpeed, "not run by DeepSpeed",
       [&](const Split& s) {
         return std::get<3>(s) == one_f_one_b && (std::get<1>(s) == 1 || std::get<6>(s) <= 1);
       }},
      {core::Framework::kFsdp, "not run by PyTorch FSDP",
       [](const Split& s) { return std::get<1>(s) == 1 && std::get<6>(s) != 1; }},
  };
  for (const Case& c : cases) {
    SplitSearchOptions options;
    options.top = 1000000;
    options.framework = c.framework;
    SplitSearch s = search_splits(small_plan("80GB"), options);
    std::set<Split> expected = only(every, c.runs);
    ASSERT_FALSE(expected.empty());
    EXPECT_EQ(found_splits(s), expected) << c.dropped_as;
    EXPECT_EQ(s.dropped[c.dropped_as], static_cast<long>(every.size() - expected.size()));
    for (const auto& candidate : s.best)
      EXPECT_EQ(candidate.plan.parallelism->framework, c.framework);  // the plan says whose it is
  }
  // Without a framework in the plan or the options, Megatron-LM's.
  EXPECT_EQ(search_splits(small_plan("80GB")).framework, core::Framework::kMegatron);
}

// A plan that overlaps the gradient reduce keeps it in every split Megatron-LM runs with it (ZeRO
// 0 and 1), with its bucket size, and its overlap of the tensor collectives in every split with a
// tensor group and sequence parallelism; DeepSpeed's splits carry neither Megatron-Core option.
TEST(SplitSearch, KeepsThePlansOverlaps) {
  core::Plan plan = small_plan("80GB");
  plan.parallelism->overlap_grad_reduce = true;
  plan.parallelism->bucket_size = 1e6;
  plan.parallelism->tp_comm_overlap = true;
  SplitSearchOptions options;
  options.top = 1000000;
  SplitSearch s = search_splits(plan, options);
  ASSERT_FALSE(s.best.empty());
  for (const auto& c : s.best) {
    EXPECT_TRUE(c.plan.parallelism->overlap_grad_reduce);
    EXPECT_EQ(c.plan.parallelism->bucket_size, 1e6);
    const core::Parallelism& p = *c.plan.parallelism;
    EXPECT_EQ(p.tp_comm_overlap, p.tensor > 1 && p.sequence_parallel);
  }
  options.framework = core::Framework::kDeepSpeed;
  for (const auto& c : search_splits(plan, options).best) {
    EXPECT_FALSE(c.plan.parallelism->overlap_grad_reduce);
    EXPECT_FALSE(c.plan.parallelism->tp_comm_overlap);
  }
}

// A plan that splits its sequence has the search range over every context degree whose 2 x
// context chunks split its 1,024 tokens and that divides the data-parallel ranks, each holding
// the global batch; --context restricts them; a plan that does not split it keeps 1.
TEST(SplitSearch, RangesOverContextDegreesWhenThePlanSplitsTheSequence) {
  core::Plan plan = small_plan("80GB");
  SplitSearchOptions options;
  options.top = 1000000;
  for (const auto& c : search_splits(plan, options).best) EXPECT_EQ(c.plan.parallelism->context, 1);
  plan.parallelism->context = 2;
  std::set<int> contexts;
  for (const auto& c : search_splits(plan, options).best) {
    const core::Parallelism& p = *c.plan.parallelism;
    contexts.insert(p.context);
    core::ModelSplit s = core::model_split(c.plan);
    EXPECT_EQ(s.replicas() * s.microbatch * s.microbatches, 64);
    EXPECT_EQ(plan.training.workers % (p.tensor * p.pipeline * p.context), 0);
  }
  EXPECT_TRUE(contexts.count(1) && contexts.count(2) && contexts.count(4) && contexts.count(32))
      << contexts.size();
  options.contexts = {4};
  SplitSearch four = search_splits(plan, options);
  ASSERT_FALSE(four.best.empty());
  for (const auto& c : four.best) EXPECT_EQ(c.plan.parallelism->context, 4);
}

// A plan's written uneven stages are tried beside the even ones: 8 layers as 1, 3, 3, 1 over 4
// stages, which no even split gives.
TEST(SplitSearch, TriesThePlansUnevenStages) {
  core::Plan plan = small_plan("80GB");
  plan.parallelism->pipeline = 4;
  plan.parallelism->first_stage_layers = 1;
  plan.parallelism->last_stage_layers = 1;
  SplitSearchOptions options;
  options.top = 1000000;
  int uneven = 0;
  for (const auto& c : search_splits(plan, options).best) {
    const core::Parallelism& p = *c.plan.parallelism;
    if (p.first_stage_layers == 0) continue;
    ++uneven;
    EXPECT_EQ(p.pipeline, 4);
    EXPECT_EQ(p.last_stage_layers, 1);
    EXPECT_EQ(core::model_split(c.plan).layers_per_chunk, 3);
  }
  EXPECT_GT(uneven, 0);
}

// A plan's embedding and loss counted as layers are tried beside the even stages: 8 layers and
// those two over 2 stages, whose 5 a stage split into 5 chunks of one, which no even split of 8
// layers over 2 stages gives (their chunks divide 4).
TEST(SplitSearch, TriesThePlansEmbeddingAndLossCountedAsLayers) {
  core::Plan plan = small_plan("80GB");
  plan.parallelism->pipeline = 2;
  plan.parallelism->embedding_in_split = plan.parallelism->loss_in_split = true;
  SplitSearchOptions options;
  options.top = 1000000;
  int counted = 0, five_chunks = 0;
  for (const auto& c : search_splits(plan, options).best) {
    const core::Parallelism& p = *c.plan.parallelism;
    if (!p.embedding_in_split) continue;
    ++counted;
    EXPECT_TRUE(p.loss_in_split);
    EXPECT_EQ(p.pipeline, 2);
    EXPECT_EQ(10 % (p.pipeline * p.virtual_stages), 0) << p.virtual_stages;
    if (p.virtual_stages == 5) ++five_chunks;
  }
  EXPECT_GT(counted, 0);
  EXPECT_GT(five_chunks, 0);
}

// Dense leading layers (moe.first_dense) leave the first stage other layers than the rest: the
// search still ranks splits over stages, and their expert data exchange is the busiest stage's.
TEST(SplitSearch, DenseLeadingLayersSplitOverStages) {
  std::string text = testing::two_node_gpt("tensor: 1", 16, 16);
  std::string dense = "vocabulary: 32000 }";
  text.replace(text.find(dense), dense.size(),
               "vocabulary: 32000, moe: { experts: 8, top_k: 2, first_dense: 1 } }");
  SplitSearchOptions options;
  options.top = 1000000;
  options.framework = core::Framework::kAny;
  SplitSearch s = search_splits(testing::load_text("split-search-first-dense", text), options);
  ASSERT_FALSE(s.best.empty());
  int staged = 0;
  for (const auto& c : s.best) staged += c.plan.parallelism->pipeline > 1;
  EXPECT_GT(staged, 0);
}

// Restrictions keep only the values given; GPipe and zero bubble are tried only when asked for.
TEST(SplitSearch, RestrictionsKeepOnlyTheValuesGiven) {
  const int interleaved = static_cast<int>(core::PipelineScheduleKind::kInterleaved);
  const int one_f_one_b = static_cast<int>(core::PipelineScheduleKind::kOneFOneB);
  SplitSearchOptions options;
  options.top = 1000000;
  options.framework = core::Framework::kAny;
  options.tensors = {2};
  options.pipelines = {2, 4};
  options.zeros = {0, 1};
  options.schedules = {core::PipelineScheduleKind::kInterleaved};
  options.max_virtual_stages = 2;
  std::set<Split> expected = only(documented_splits(), [&](const Split& s) {
    auto [t, p, mb, schedule, v, recompute, zero, sp] = s;
    return t == 2 && (p == 2 || p == 4) && zero <= 1 && schedule == interleaved && v <= 2;
  });
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(found_splits(search_splits(small_plan("80GB"), options)), expected);
  // GPipe: the 1F1B splits with stages, as GPipe.
  options = {};
  options.top = 1000000;
  options.framework = core::Framework::kAny;
  options.schedules = {core::PipelineScheduleKind::kGpipe};
  std::set<Split> gpipe;
  for (Split s : only(documented_splits(), [&](const Split& s) {
         return std::get<3>(s) == one_f_one_b && std::get<1>(s) > 1;
       })) {
    std::get<3>(s) = static_cast<int>(core::PipelineScheduleKind::kGpipe);
    gpipe.insert(s);
  }
  EXPECT_EQ(found_splits(search_splits(small_plan("80GB"), options)), gpipe);
  // Zero bubble, also only when asked for: the 1F1B splits with stages, less ZeRO-2 and 3 (not
  // modelled with it).
  options.schedules = {core::PipelineScheduleKind::kZeroBubble};
  std::set<Split> zero_bubble;
  for (Split s : only(documented_splits(), [&](const Split& s) {
         return std::get<3>(s) == one_f_one_b && std::get<1>(s) > 1 && std::get<6>(s) <= 1;
       })) {
    std::get<3>(s) = static_cast<int>(core::PipelineScheduleKind::kZeroBubble);
    zero_bubble.insert(s);
  }
  EXPECT_EQ(found_splits(search_splits(small_plan("80GB"), options)), zero_bubble);
  // DualPipeV, only when asked for: those with ZeRO 0-1 whose 8 layers make two chunks a stage
  // and whose replica runs at least twice as many micro-batches as stages (64 t p / (32 mb) of
  // them: t >= mb).
  options.schedules = {core::PipelineScheduleKind::kDualPipeV};
  std::set<Split> dualpipev;
  for (Split s : only(documented_splits(), [&](const Split& s) {
         auto [t, p, mb, schedule, v, recompute, zero, sp] = s;
         return schedule == one_f_one_b && p > 1 && 8 % (2 * p) == 0 && zero <= 1 && t >= mb;
       })) {
    std::get<3>(s) = static_cast<int>(core::PipelineScheduleKind::kDualPipeV);
    dualpipev.insert(s);
  }
  ASSERT_FALSE(dualpipev.empty());
  EXPECT_EQ(found_splits(search_splits(small_plan("80GB"), options)), dualpipev);
}

// A plan written for DualPipe with uneven chunks (8 layers over DualPipe's 2 positions as 5 and 3):
// the search tries DualPipe with those counts, as the plan meant them, and 1F1B with them as
// stages.
TEST(SplitSearch, AWrittenDualPipeLayoutIsTriedUnderDualPipe) {
  core::Plan plan = testing::load_text(
      "split-search-dualpipe-uneven",
      testing::two_node_gpt(
          "pipeline: 2, schedule: dualpipe, first_stage_layers: 5, last_stage_layers: 3", 16, 32));
  SplitSearchOptions options;
  options.top = 1000000;
  options.framework = core::Framework::kAny;
  options.pipelines = {2};
  options.schedules = {core::PipelineScheduleKind::kDualPipe,
                       core::PipelineScheduleKind::kOneFOneB};
  int dualpipe = 0, one_f_one_b = 0;
  for (const auto& c : search_splits(plan, options).best) {
    const core::Parallelism& p = *c.plan.parallelism;
    if (p.first_stage_layers != 5) continue;
    EXPECT_EQ(p.last_stage_layers, 3);
    dualpipe += p.schedule == core::PipelineScheduleKind::kDualPipe;
    one_f_one_b += p.schedule == core::PipelineScheduleKind::kOneFOneB;
  }
  EXPECT_GT(dualpipe, 0);
  EXPECT_GT(one_f_one_b, 0);
}

// DeepSeek-V3's plan searched over its own degrees: the search runs each split as the plan runs
// what the split leaves alone (its recomputation modules, its deduplicated FP8 exchange), so the
// plan's own split comes out with the plan's own step.
TEST(SplitSearch, ASplitRunsThePlansRecomputationAndExchange) {
  core::Plan plan =
      core::load_plan(testing::source_path("experiments/deepseek-v3/deepseek-v3-2048.yaml"));
  SplitSearchOptions options;
  options.top = 1000000;
  options.memory_margin = 0;
  options.framework = core::Framework::kAny;
  options.tensors = {1}, options.pipelines = {16}, options.experts = {64}, options.zeros = {1};
  options.schedules = {core::PipelineScheduleKind::kDualPipe};
  double own = predict_analytic(plan).step_time_s;
  int found = 0;
  for (const auto& c : search_splits(plan, options).best) {
    const core::Parallelism& p = *c.plan.parallelism;
    EXPECT_EQ(p.expert_alltoall, core::ExpertAllToAll::kDeduplicated);
    EXPECT_TRUE(p.expert_dispatch_fp8);
    if (p.recompute != core::Recompute::kSelective || p.first_stage_layers != 3 ||
        p.microbatch != 1)
      continue;
    EXPECT_TRUE(p.recompute_modules.mla_up_proj && p.recompute_modules.moe_act);
    EXPECT_NEAR(c.result.step_time_s, own, 1e-9 * own);
    ++found;
  }
  EXPECT_EQ(found, 1);
}

TEST(SplitSearch, CountsWhatDoesNotFit) {
  SplitSearch roomy = search_splits(small_plan("80GB"));
  SplitSearch tight = search_splits(small_plan("4GB"));
  long left_out = tight.dropped["does not fit in the device's memory"];
  EXPECT_GT(left_out, 0);
  EXPECT_EQ(roomy.dropped.count("does not fit in the device's memory"), 0u);
  // The same splits, split differently between evaluated and left out.
  long roomy_total = roomy.evaluated, tight_total = tight.evaluated + left_out;
  for (const auto& [why, n] : roomy.dropped) roomy_total += n;
  for (const auto& [why, n] : tight.dropped)
    if (why != "does not fit in the device's memory") tight_total += n;
  EXPECT_EQ(roomy_total, tight_total);
  SplitSearch none = search_splits(small_plan("0.1GB"));
  EXPECT_TRUE(none.best.empty());
}

// The margin leaves a share of the memory free: every split listed needs at most (1 - margin) of
// it, and a wider margin leaves more out.
TEST(SplitSearch, TheMemoryMarginLeavesItsShareFree) {
  core::Plan plan = small_plan("4GB");
  SplitSearchOptions options;
  options.top = 1000000;
  for (double margin : {0.0, 0.1, 0.5}) {
    options.memory_margin = margin;
    SplitSearch s = search_splits(plan, options);
    ASSERT_FALSE(s.best.empty()) << margin;
    for (const auto& c : s.best)
      EXPECT_LE(c.result.model_parallel->memory.total, (1 - margin) * 4e9) << margin;
  }
  options.memory_margin = 0;
  long none = search_splits(plan, options).dropped["does not fit in the device's memory"];
  options.memory_margin = 0.5;
  long half = search_splits(plan, options).dropped["does not fit in the device's memory"];
  EXPECT_GT(half, none);
}

// A model small enough for data parallelism alone: on a fast network nothing beats it; with the
// NIC 100x slower the data-parallel exchange dominates and the best split moves to tensor or
// pipeline groups, which shrink it; and back when the network is fast again, even when the search
// starts from the slow network's winner (a plan's split is only a starting point).
TEST(SplitSearch, TheBestSplitFollowsTheNetwork) {
  core::Plan plan = small_plan("80GB");
  plan.cluster.nic.bandwidth *= 10;  // 1 Tb/s
  auto best = [](const core::Plan& p) { return search_splits(p).best.front(); };
  auto model_parallel_degree = [](const SplitCandidate& c) {
    return c.plan.parallelism->tensor * c.plan.parallelism->pipeline;
  };
  SplitCandidate fast = best(plan);
  EXPECT_EQ(model_parallel_degree(fast), 1);
  core::Plan slow = plan;
  slow.cluster.nic.bandwidth /= 100;
  SplitCandidate slow_best = best(slow);
  ASSERT_GT(model_parallel_degree(slow_best), 1);
  core::Plan back = slow_best.plan;
  back.cluster.nic.bandwidth = plan.cluster.nic.bandwidth;
  SplitCandidate again = best(back);
  EXPECT_EQ(split_of(*again.plan.parallelism), split_of(*fast.plan.parallelism))
      << describe(split_of(*again.plan.parallelism)) << " against "
      << describe(split_of(*fast.plan.parallelism));
  EXPECT_DOUBLE_EQ(again.result.step_time_s, fast.result.step_time_s);
}

TEST(SplitSearch, RefusesAWorkloadWithoutDimensions) {
  core::Plan plan = testing::collective_plan(testing::switch_cluster(4, 1e9, 1e-6),
                                             core::StrategyKind::kRing, 4, 1000);
  EXPECT_THROW(search_splits(plan), core::InputError);
}

}  // namespace
}  // namespace scaleout::sim

// ParallelState numbers ranks as Megatron-Core does. The expected groups come from Megatron-Core's
// own algorithm (generate_masked_orthogonal_rank_groups in megatron/core/parallel_state.py),
// written again below from its description, not from ParallelState's coordinate arithmetic.
#include "core/parallel/parallel_state.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/parallel/model_split.hpp"

namespace scaleout::core {
namespace {

using Groups = std::vector<std::vector<int>>;

// --- Megatron-Core's algorithm, as a list-of-sizes computation --------------------------------

// Exclusive prefix products: {1, a0, a0 a1, ...} (one longer than `a`).
std::vector<int> prefix_product(const std::vector<int>& a) {
  std::vector<int> r{1};
  for (int v : a) r.push_back(r.back() * v);
  return r;
}

int inner_product(const std::vector<int>& a, const std::vector<int>& b) {
  int sum = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) sum += a[i] * b[i];
  return sum;
}

// The digits of `index` in the mixed radix `shape`, least significant first.
std::vector<int> decompose(int index, const std::vector<int>& shape) {
  std::vector<int> stride = prefix_product(shape), idx;
  for (std::size_t i = 0; i < shape.size(); ++i) idx.push_back(index / stride[i] % shape[i]);
  return idx;
}

// Megatron-Core's generate_masked_orthogonal_rank_groups(world_size, parallel_size, mask).
Groups megatron_groups(int world_size, const std::vector<int>& parallel_size,
                       const std::vector<bool>& mask) {
  std::vector<int> masked_shape, unmasked_shape, masked_stride, unmasked_stride;
  std::vector<int> global_stride = prefix_product(parallel_size);
  for (std::size_t i = 0; i < parallel_size.size(); ++i) {
    (mask[i] ? masked_shape : unmasked_shape).push_back(parallel_size[i]);
    (mask[i] ? masked_stride : unmasked_stride).push_back(global_stride[i]);
  }
  int group_size = prefix_product(masked_shape).back();
  Groups ranks;
  for (int group_index = 0; group_index < world_size / group_size; ++group_index) {
    std::vector<int> group_idx = decompose(group_index, unmasked_shape), group;
    for (int rank_in_group = 0; rank_in_group < group_size; ++rank_in_group)
      group.push_back(inner_product(decompose(rank_in_group, masked_shape), masked_stride) +
                      inner_product(group_idx, unmasked_stride));
    ranks.push_back(group);
  }
  return ranks;
}

// Megatron's order and its tokens, as RankGenerator("tp-cp-ep-dp-pp") takes them.
const std::vector<std::string> kOrder = {"tp", "cp", "ep", "dp", "pp"};
const std::map<std::string, ParallelDim> kDimOf = {{"tp", ParallelDim::kTensor},
                                                   {"cp", ParallelDim::kContext},
                                                   {"ep", ParallelDim::kExpert},
                                                   {"dp", ParallelDim::kData},
                                                   {"pp", ParallelDim::kPipeline}};

std::vector<std::string> tokens(const std::string& token) {  // "tp-dp" -> {"tp", "dp"}
  std::vector<std::string> out;
  std::stringstream in(token);
  for (std::string t; std::getline(in, t, '-');) out.push_back(t);
  return out;
}

// RankGenerator.get_ranks(token) for the degrees {tp, cp, ep, dp, pp}.
Groups get_ranks(const std::vector<int>& sizes, const std::string& token) {
  std::vector<bool> mask(kOrder.size(), false);
  for (const std::string& t : tokens(token))
    mask[std::find(kOrder.begin(), kOrder.end(), t) - kOrder.begin()] = true;
  int world = 1;
  for (int s : sizes) world *= s;
  return megatron_groups(world, sizes, mask);
}

// --- ParallelState against it ------------------------------------------------------------------

std::vector<ParallelDim> dims_of(const std::string& token) {
  std::vector<ParallelDim> dims;
  for (const std::string& t : tokens(token)) dims.push_back(kDimOf.at(t));
  return dims;
}

ParallelState state_of(const std::vector<int>& s, const RankPacking& packing = {}) {
  return ParallelState(ParallelDegrees{s[0], s[1], s[2], s[3], s[4]}, packing);
}

std::string describe(const std::vector<int>& s) {
  return "tp " + std::to_string(s[0]) + " cp " + std::to_string(s[1]) + " ep " +
         std::to_string(s[2]) + " dp " + std::to_string(s[3]) + " pp " + std::to_string(s[4]);
}

// Every group of `token` as Megatron lists them, and each rank's own among them.
void expect_groups_as_megatron(const std::vector<int>& sizes, const std::string& token) {
  SCOPED_TRACE(describe(sizes) + ", groups " + token);
  ParallelState ps = state_of(sizes);
  Groups expected = get_ranks(sizes, token);
  ASSERT_EQ(ps.groups(dims_of(token)), expected);
  for (const std::vector<int>& g : expected)
    for (int r : g) ASSERT_EQ(ps.group(r, dims_of(token)), g) << "rank " << r;
}

// A rank's coordinate along a kind is its place in its group of that kind (Megatron's
// get_tensor_model_parallel_rank() and the like), and rank_of() undoes coordinates().
void expect_coordinates_as_megatron(const std::vector<int>& sizes) {
  SCOPED_TRACE(describe(sizes));
  ParallelState ps = state_of(sizes);
  ASSERT_EQ(ps.world_size(), sizes[0] * sizes[1] * sizes[2] * sizes[3] * sizes[4]);
  std::vector<std::vector<int>> place(kOrder.size(), std::vector<int>(ps.world_size(), -1));
  for (std::size_t k = 0; k < kOrder.size(); ++k)
    for (const std::vector<int>& g : get_ranks(sizes, kOrder[k]))
      for (std::size_t i = 0; i < g.size(); ++i) place[k][g[i]] = static_cast<int>(i);
  for (int r = 0; r < ps.world_size(); ++r) {
    RankCoords at = ps.coordinates(r);
    EXPECT_EQ((std::vector<int>{at.tensor, at.context, at.expert, at.data, at.stage}),
              (std::vector<int>{place[0][r], place[1][r], place[2][r], place[3][r], place[4][r]}))
        << "rank " << r;
    EXPECT_EQ(ps.rank_of(at), r);
  }
}

// Every non-empty set of kinds, as a token in Megatron's order ("tp", ..., "tp-dp", ...).
std::vector<std::string> every_token() {
  std::vector<std::string> out;
  for (int mask = 1; mask < 1 << kOrder.size(); ++mask) {
    std::string token;
    for (std::size_t k = 0; k < kOrder.size(); ++k)
      if (mask >> k & 1) token += (token.empty() ? "" : "-") + kOrder[k];
    out.push_back(token);
  }
  return out;
}

TEST(ParallelState, EveryGridOfDegreesOneToThreeNumbersRanksAsMegatron) {
  const std::vector<std::string> tokens = every_token();
  ASSERT_EQ(tokens.size(), 31u);  // 2^5 - 1, "tp-dp", "tp-pp" and "cp-dp" among them
  int grids = 0;
  for (int tp = 1; tp <= 3; ++tp)
    for (int cp = 1; cp <= 3; ++cp)
      for (int ep = 1; ep <= 3; ++ep)
        for (int dp = 1; dp <= 3; ++dp)
          for (int pp = 1; pp <= 3; ++pp) {
            std::vector<int> sizes{tp, cp, ep, dp, pp};
            expect_coordinates_as_megatron(sizes);
            for (const std::string& token : tokens) expect_groups_as_megatron(sizes, token);
            ++grids;
          }
  EXPECT_EQ(grids, 243);
}

TEST(ParallelState, LargerGridsNumberRanksAsMegatron) {
  for (const std::vector<int>& sizes : std::vector<std::vector<int>>{{8, 1, 1, 4, 2},
                                                                     {8, 1, 1, 16, 4},
                                                                     {4, 2, 1, 2, 2},
                                                                     {2, 1, 4, 2, 3},
                                                                     {1, 1, 1, 64, 1},
                                                                     {1, 1, 1, 1, 16}}) {
    expect_coordinates_as_megatron(sizes);
    for (const std::string& token : every_token()) expect_groups_as_megatron(sizes, token);
  }
}

// Megatron-Core's docstrings, by hand: 16 GPUs, tensor 2, pipeline 4 (so data 2).
TEST(ParallelState, MegatronsDocumentedExample) {
  ParallelState ps(ParallelDegrees{.tensor = 2, .data = 2, .pipeline = 4});
  EXPECT_EQ(ps.groups({ParallelDim::kData}),
            (Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8, 10}, {9, 11}, {12, 14}, {13, 15}}));
  EXPECT_EQ(ps.groups({ParallelDim::kTensor}),
            (Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}}));
  EXPECT_EQ(ps.groups({ParallelDim::kPipeline}),
            (Groups{{0, 4, 8, 12}, {1, 5, 9, 13}, {2, 6, 10, 14}, {3, 7, 11, 15}}));
  // generate_masked_orthogonal_rank_groups' example: tp 2, dp 3, pp 4; dp groups 0 and 7.
  ParallelState big(ParallelDegrees{.tensor = 2, .data = 3, .pipeline = 4});
  EXPECT_EQ(big.groups({ParallelDim::kData}).front(), (std::vector<int>{0, 2, 4}));
  EXPECT_EQ(big.groups({ParallelDim::kData})[7], (std::vector<int>{19, 21, 23}));
}

TEST(ParallelState, CoordinatesByHand) {
  ParallelState ps(ParallelDegrees{.tensor = 8, .data = 4, .pipeline = 2});
  // 45 = 5 + 8 (1 + 4 x 1): tensor 5, data 1, stage 1.
  EXPECT_EQ(ps.coordinates(45), (RankCoords{.tensor = 5, .data = 1, .stage = 1}));
  EXPECT_EQ(ps.rank_of({.tensor = 5, .data = 1, .stage = 1}), 45);
  EXPECT_EQ(ps.ranks_per_stage(), 32);  // 8 x 4
  EXPECT_EQ(ps.group(45, {}), (std::vector<int>{45}));
  // tp 2, cp 3: 11 = 1 + 2 (2 + 3 x 1): tensor 1, context 2, data 1.
  ParallelState cp(ParallelDegrees{.tensor = 2, .context = 3, .data = 2});
  EXPECT_EQ(cp.coordinates(11), (RankCoords{.tensor = 1, .context = 2, .data = 1}));
  EXPECT_EQ(cp.ranks_per_stage(), 12);  // 2 x 3 x 2
}

TEST(ParallelState, PackedNodes) {
  ParallelState ps(ParallelDegrees{.tensor = 8, .data = 4}, RankPacking{.devices_per_node = 8});
  EXPECT_EQ(ps.packed_node_of(0), 0);
  EXPECT_EQ(ps.packed_node_of(7), 0);   // 7 / 8
  EXPECT_EQ(ps.packed_node_of(8), 1);   // 8 / 8
  EXPECT_EQ(ps.packed_node_of(31), 3);  // 31 / 8
}

TEST(ParallelState, StageBoundariesCrossNodes) {
  auto crossings = [](ParallelDegrees d, RankPacking p) {
    ParallelState ps(d, p);
    std::vector<bool> out;
    for (int s = 0; s < d.pipeline; ++s) out.push_back(ps.boundary_crosses_nodes(s));
    return out;
  };
  // tp 2 dp 2 pp 4, 8 a node: stages hold 0-3, 4-7 (node 0), 8-11, 12-15 (node 1); 3 -> 0 wraps.
  EXPECT_EQ(crossings({.tensor = 2, .data = 2, .pipeline = 4}, {.devices_per_node = 8}),
            (std::vector<bool>{false, true, false, true}));
  // tp 4 pp 2, 8 a node: both stages on node 0, the wrap too.
  EXPECT_EQ(crossings({.tensor = 4, .pipeline = 2}, {.devices_per_node = 8}),
            (std::vector<bool>{false, false}));
  // The same on an explicit network: every boundary counts as leaving a node.
  EXPECT_EQ(
      crossings({.tensor = 4, .pipeline = 2}, {.devices_per_node = 8, .explicit_network = true}),
      (std::vector<bool>{true, true}));
  // tp 3 pp 3, 4 a node: 0-2 | 3-5 | 6-8 straddle nodes 0/1/2 (1 -> 4, 3 -> 6, 6 -> 0).
  EXPECT_EQ(crossings({.tensor = 3, .pipeline = 3}, {.devices_per_node = 4}),
            (std::vector<bool>{true, true, true}));
  // tp 2 cp 2 pp 2, 4 a node: context doubles a stage to 4 ranks: 0-3 (node 0) -> 4-7 (node 1).
  EXPECT_EQ(crossings({.tensor = 2, .context = 2, .pipeline = 2}, {.devices_per_node = 4}),
            (std::vector<bool>{true, true}));
  // One stage: its boundary is its own wrap (to itself), inside its nodes.
  EXPECT_EQ(crossings({.tensor = 4, .data = 4}, {.devices_per_node = 2}),
            (std::vector<bool>{false}));
}

Plan transformer_plan() {
  Plan p;
  p.training.workers = 32;
  p.training.batch_per_worker = 4;
  p.cluster.devices_per_node = 8;
  p.workload.transformer = TransformerShape{};
  p.workload.transformer->layers = 24;
  Parallelism par;
  par.tensor = 4, par.pipeline = 2, par.microbatch = 2, par.virtual_stages = 3;
  p.parallelism = par;
  return p;
}

TEST(ParallelState, OfAModelParallelPlan) {
  Plan p = transformer_plan();
  ParallelState ps = ParallelState::of(p);
  EXPECT_EQ(ps.degree(ParallelDim::kTensor), 4);
  EXPECT_EQ(ps.degree(ParallelDim::kContext), 1);
  EXPECT_EQ(ps.degree(ParallelDim::kExpert), 1);
  EXPECT_EQ(ps.degree(ParallelDim::kData), 4);  // 32 / (4 x 2)
  EXPECT_EQ(ps.degree(ParallelDim::kPipeline), 2);
  EXPECT_EQ(ps.devices_per_node(), 8);
  const ModelSplit& s = ps.split();
  EXPECT_EQ(s.global_batch, 16);     // 4 a worker x data 4
  EXPECT_EQ(s.microbatches, 2);      // 16 / (4 x 2)
  EXPECT_EQ(s.chunks, 3);            // virtual stages
  EXPECT_EQ(s.layers_per_chunk, 4);  // 24 / (2 x 3)
  EXPECT_EQ(model_split(p).microbatches, s.microbatches);
  p.training.global_batch = 64;
  EXPECT_EQ(ParallelState::of(p).split().microbatches, 8);  // 64 / (4 x 2)
  p.cluster.devices_per_node = 0;
  EXPECT_EQ(ParallelState::of(p).devices_per_node(), 1);  // at least one
}

TEST(ParallelState, OfADataParallelPlan) {
  Plan p;
  p.training.workers = 12;
  p.training.batch_per_worker = 32;
  ParallelState ps = ParallelState::of(p);
  for (ParallelDim d :
       {ParallelDim::kTensor, ParallelDim::kContext, ParallelDim::kExpert, ParallelDim::kPipeline})
    EXPECT_EQ(ps.degree(d), 1);
  EXPECT_EQ(ps.degree(ParallelDim::kData), 12);
  EXPECT_EQ(ps.world_size(), 12);
  EXPECT_EQ(ps.split().global_batch, 384);    // 32 x 12
  EXPECT_EQ(ps.split().layers_per_chunk, 0);  // no transformer
  EXPECT_EQ(ps.group(5, {ParallelDim::kData}).size(), 12u);
}

}  // namespace
}  // namespace scaleout::core

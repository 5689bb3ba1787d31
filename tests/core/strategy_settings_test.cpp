// Strategy knobs by kind: a knob the plan's kind does not read is refused with its line; per-kind
// sections carry the knobs of the kinds a sweep runs; the old flat form loads, deprecated.
#include "core/plan/strategy_settings.hpp"

#include <gtest/gtest.h>

#include <string>

#include "tests/core/plan_text.hpp"

namespace scaleout::core {
namespace {

using testing::expect_refused;
using testing::load_text;

// The inline cluster and workload (lines 1-8), the strategy mapping on line 9, 8 workers.
std::string with_strategy(const std::string& strategy) {
  return std::string(testing::kInlineCluster) + testing::kInlineWorkload + "strategy: " + strategy +
         "\n" + "training: { workers: 8 }\n";
}

TEST(StrategySettings, KnobsAreReadByTheKindsThatUseThem) {
  EXPECT_TRUE(knob_applies("chunk", StrategyKind::kRing));
  EXPECT_TRUE(knob_applies("chunk", StrategyKind::kTree));
  EXPECT_TRUE(knob_applies("chunk", StrategyKind::kHierarchicalAllreduce));
  EXPECT_TRUE(knob_applies("chunk", StrategyKind::kHierarchicalHalvingDoubling));
  EXPECT_FALSE(knob_applies("chunk", StrategyKind::kPs));
  EXPECT_FALSE(knob_applies("chunk", StrategyKind::kHalvingDoubling));
  EXPECT_TRUE(knob_applies("grid", StrategyKind::kTorus2d));
  EXPECT_FALSE(knob_applies("grid", StrategyKind::kPs));
  EXPECT_TRUE(knob_applies("staleness_bound", StrategyKind::kPs));
  EXPECT_FALSE(knob_applies("mode", StrategyKind::kRing));
  EXPECT_FALSE(knob_applies("no_such_knob", StrategyKind::kRing));
}

TEST(StrategySettings, MisplacedFlatKnobsAreRefusedWithTheirLine) {
  expect_refused("ring_mode", with_strategy("{ kind: ring, mode: async }"), 9,
                 "does not apply to kind ring");
  expect_refused("ring_staleness", with_strategy("{ kind: ring, staleness_bound: 2 }"), 9,
                 "staleness_bound");
  expect_refused("ring_grid", with_strategy("{ kind: ring, grid: [2, 4] }"), 9, "'strategy.grid'");
  expect_refused("ps_grid", with_strategy("{ kind: ps, grid: [2, 4] }"), 9,
                 "does not apply to kind ps");
  expect_refused("ps_chunk", with_strategy("{ kind: ps, chunk: 1MiB }"), 9,
                 "does not apply to kind ps");
  expect_refused("hd_chunk", with_strategy("{ kind: halving_doubling, chunk: 1MiB }"), 9,
                 "does not apply to kind halving_doubling");
  expect_refused("ring_servers", with_strategy("{ kind: ring, servers: 2 }"), 9,
                 "ps: { servers: ... }");
}

TEST(StrategySettings, SectionsHoldOnlyTheirKindsKnobs) {
  expect_refused("ps_section_grid", with_strategy("{ kind: ring, ps: { grid: [2, 4] } }"), 9,
                 "'strategy.ps.grid'");
  expect_refused("section_unknown", with_strategy("{ kind: ring, ps: { serverz: 2 } }"), 9,
                 "unknown key");
  expect_refused("hd_section_chunk",
                 with_strategy("{ kind: ring, halving_doubling: { chunk: 1MiB } }"), 9,
                 "does not apply to kind halving_doubling");
  expect_refused("chunk_twice", with_strategy("{ kind: ring, chunk: 1MiB, tree: { chunk: 2MiB } }"),
                 9, "twice");
  expect_refused("section_not_a_map", with_strategy("{ kind: ring, ps: 4 }"), 9, "mapping");
}

TEST(StrategySettings, SectionsApplyWhenTheirKindRuns) {
  std::string text = with_strategy(
      "{ kind: ring, chunk: 1MiB, ps: { servers: 1, mode: async, staleness_bound: 2 }, torus2d: { "
      "grid: [2, 4] } }");
  Plan ring = load_text("sections_ring", text);
  EXPECT_EQ(ring.strategy.kind, StrategyKind::kRing);
  EXPECT_DOUBLE_EQ(ring.strategy.chunk, 1 << 20);
  EXPECT_TRUE(ring.warnings.empty());

  PlanOverrides as_ps;
  as_ps.strategy = StrategyKind::kPs;
  Plan ps = load_text("sections_ps", text, as_ps);
  EXPECT_EQ(ps.strategy.kind, StrategyKind::kPs);
  EXPECT_EQ(ps.strategy.ps_mode, PsMode::kAsync);
  EXPECT_EQ(ps.strategy.staleness_bound, 2);

  PlanOverrides as_torus;
  as_torus.strategy = StrategyKind::kTorus2d;
  Plan torus = load_text("sections_torus", text, as_torus);
  ASSERT_TRUE(torus.strategy.grid);
  EXPECT_EQ((*torus.strategy.grid)[0], 2);
  EXPECT_EQ((*torus.strategy.grid)[1], 4);
}

TEST(StrategySettings, ASectionsKnobsAreCheckedWhenItsKindRuns) {
  // softsync of 9 fits no 8-worker job: refused when ps runs, with the section's line.
  std::string text = with_strategy("{ kind: ring, ps: { softsync: 9 } }");
  load_text("softsync_ring", text);
  PlanOverrides as_ps;
  as_ps.strategy = StrategyKind::kPs;
  expect_refused("softsync_ps", text, 9, "cannot exceed", as_ps);
}

TEST(StrategySettings, FlatKnobsOfAKindThatWillRunAreDeprecatedNotRefused) {
  std::string text = with_strategy("{ kind: ring, servers: 1, mode: async }");
  PlanOverrides sweep;
  sweep.strategies = {StrategyKind::kRing, StrategyKind::kPs};
  Plan p = load_text("deprecated_sweep", text, sweep);
  EXPECT_EQ(p.strategy.kind, StrategyKind::kRing);
  EXPECT_EQ(p.strategy.ps_mode, PsMode::kAsync);
  ASSERT_EQ(p.warnings.size(), 2u);
  EXPECT_NE(p.warnings[0].find("deprecated"), std::string::npos) << p.warnings[0];
  EXPECT_NE(p.warnings[0].find(":9:"), std::string::npos) << p.warnings[0];

  PlanOverrides as_ps;
  as_ps.strategy = StrategyKind::kPs;
  EXPECT_EQ(load_text("deprecated_override", text, as_ps).warnings.size(), 2u);

  PlanOverrides as_tree;
  as_tree.strategy = StrategyKind::kTree;
  expect_refused("deprecated_not_run", text, 9, "does not apply", as_tree);
}

}  // namespace
}  // namespace scaleout::core

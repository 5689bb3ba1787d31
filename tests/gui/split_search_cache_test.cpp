// The window's split searches are kept while only the plan's own split changes, and searched
// again, with the fresh search's answer, after any other edit.
#include "gui/split_search_cache.hpp"

#include <gtest/gtest.h>

#include "core/plan/plan_loader.hpp"
#include "gui/main_window.hpp"
#include "gui/plan_panel.hpp"
#include "tests/gui/gui_support.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::gui {
namespace {

void expect_same_steps(const std::vector<sim::SizeBest>& got,
                       const std::vector<sim::SizeBest>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].best.has_value(), want[i].best.has_value()) << got[i].workers;
    if (got[i].best)
      EXPECT_DOUBLE_EQ(got[i].best->result.step_time_s, want[i].best->result.step_time_s)
          << got[i].workers;
  }
}

TEST(SplitSearchCache, KeepsItsAnswersWhileOnlyTheSplitChanges) {
  core::Plan plan =
      core::load_plan(testing::source_path("experiments/model-parallel/gpt-7.5b-64.yaml"));
  const std::vector<int> sizes = {32, 64, 128};
  SplitSearchCache cache;
  std::vector<sim::SizeBest> first = cache.best_per_size(plan, sizes);
  expect_same_steps(first, sim::best_split_per_size(sim::with_global_batch(plan), sizes));
  EXPECT_EQ(cache.searches(), 3);
  std::vector<sim::SplitCandidate> top = cache.top_at(plan, 64, 5);
  EXPECT_EQ(cache.searches(), 4);

  core::Plan other_split = plan;
  other_split.parallelism->pipeline = 4;
  other_split.parallelism->microbatch = 2;
  expect_same_steps(cache.best_per_size(other_split, sizes), first);
  EXPECT_EQ(cache.top_at(other_split, 64, 5).size(), top.size());
  EXPECT_EQ(cache.searches(), 4) << "an edit of the split searched again";

  // Slower links: every size searched again, and the answers are the fresh search's.
  core::Plan slower = plan;
  slower.cluster.nic.bandwidth /= 8;
  std::vector<sim::SizeBest> again = cache.best_per_size(slower, sizes);
  EXPECT_EQ(cache.searches(), 7);
  expect_same_steps(again, sim::best_split_per_size(sim::with_global_batch(slower), sizes));
  ASSERT_TRUE(again[2].best && first[2].best);
  EXPECT_GT(again[2].best->result.step_time_s, first[2].best->result.step_time_s);
  EXPECT_EQ(cache.top_at(slower, 64, 5).size(), top.size());
  EXPECT_EQ(cache.searches(), 8);
}

// In the window: typing another pipeline depth redraws the plan's split without searching again,
// and the best-split line is still the fresh search's; a NIC edit searches again.
TEST(SplitSearchCache, TheWindowSearchesAgainOnlyWhenTheSearchWouldChange) {
  const std::string path = testing::source_path("experiments/model-parallel/gpt-7.5b-64.yaml");
  MainWindow w(core::load_plan(path));
  long searched = w.split_cache().searches();
  ASSERT_GT(searched, 0);
  type_into(w.plan_panel()->editor("parallelism.pipeline"), "4");
  ASSERT_TRUE(w.plan_panel()->error("parallelism.pipeline").isEmpty());
  EXPECT_EQ(w.split_cache().searches(), searched);
  core::Plan edited = core::load_plan(path);
  edited.parallelism->pipeline = 4;
  std::vector<sim::SizeBest> fresh =
      sim::best_split_per_size(sim::with_global_batch(edited), w.curves().workers);
  const SeriesData& line = w.throughput_chart()->data().lines.front();
  ASSERT_EQ(line.name, "best split");
  int i = 0;
  for (const sim::SizeBest& row : fresh) {
    if (!row.best) continue;
    ASSERT_LT(i, line.points.size());
    EXPECT_DOUBLE_EQ(line.points[i++].y(), row.best->result.model_parallel->tokens_per_s);
  }
  EXPECT_EQ(i, line.points.size());
  type_into(w.plan_panel()->editor("nic.bandwidth"), "25Gbps");
  EXPECT_GT(w.split_cache().searches(), searched);
}

}  // namespace
}  // namespace scaleout::gui

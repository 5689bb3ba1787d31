// A model-parallel plan in the window: its curves step by whole replicas and its step-time chart
// shows the pipeline bubble beside compute and exposed communication (a data-parallel plan's does
// not); the window is grabbed for a person to look at.
#include <gtest/gtest.h>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QStatusBar>
#include <QTest>
#include <nlohmann/json.hpp>

#include "analytic/analytic.hpp"
#include "core/model/model_memory.hpp"
#include "core/parallel/model_split.hpp"
#include "core/plan/plan_loader.hpp"
#include "explore/curves.hpp"
#include "explore/planner.hpp"
#include "explore/split_search.hpp"
#include "gui/answer_panel.hpp"
#include "gui/chart_data.hpp"
#include "gui/main_window.hpp"
#include "gui/plan_panel.hpp"
#include "gui/render.hpp"
#include "gui/split_chart_data.hpp"
#include "gui/split_table.hpp"
#include "gui/timeline_view.hpp"
#include "gui/timeline_window.hpp"
#include "tests/gui/gui_support.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::gui {
namespace {

const std::string kGpt3 = testing::source_path("experiments/model-parallel/gpt3-175b.yaml");

TEST(GuiModelParallel, StepChartShowsThePipelineBubble) {
  core::Plan plan = core::load_plan(kGpt3);
  std::vector<int> sizes = sim::fitting_sizes(plan);
  EXPECT_EQ(sizes.front(), 128);  // one replica: tensor 8 x pipeline 16
  core::Plan larger = plan;       // the sizes reach the plan's own
  larger.training.workers = 4096;
  EXPECT_EQ(sim::fitting_sizes(larger).back(), 4096);
  sim::Curves curves = sim::compute_curves(plan, sizes);
  BarChartData d = breakdown_data(curves, 512);
  ASSERT_EQ(d.stacks.size(), 3u);
  EXPECT_EQ(d.stacks[2].name, "pipeline bubble");
  const core::RunResult* ring = sim::find_point(curves, "ring", 512);
  ASSERT_NE(ring, nullptr);
  int i = static_cast<int>(d.categories.indexOf("ring"));
  ASSERT_GE(i, 0);
  EXPECT_NEAR(d.stacks[2].points[i].y(), ring->model_parallel->bubble_s * 1e3, 1e-6);
  // The three parts make up the step.
  double sum = 0;
  for (const auto& s : d.stacks) sum += s.points[i].y();
  EXPECT_NEAR(sum, ring->step_time_s * 1e3, 1e-6 * ring->step_time_s * 1e3);
  // A data-parallel plan has no bubble stack.
  EXPECT_EQ(breakdown_data(sim::compute_curves(quickstart(), {8, 64}), 64).stacks.size(), 2u);
}

// The split charts' numbers are the search's and the plan's own: at each size the best split's
// tokens/s and MFU are what searching a plan of that many workers gives first, the plan's split's
// what predicting the plan at that size gives, and each bar of the step by kind adds up to its
// split's step. The page is written for a person to look at.
TEST(GuiModelParallel, SplitChartsAreTheSearchsAndThePlansNumbers) {
  core::Plan plan = core::load_plan(kGpt3);
  std::vector<int> sizes = {128, 256, 512};
  sim::Curves curves = sim::compute_curves(plan, sizes);
  std::vector<sim::SizeBest> best = sim::best_split_per_size(sim::with_global_batch(plan), sizes);
  std::vector<const core::RunResult*> own = own_split_points(plan, curves);
  LineChartData tokens = split_scaling_data(best, own, sizes, false);
  LineChartData mfu = split_scaling_data(best, own, sizes, true);
  ASSERT_EQ(tokens.lines.size(), 2u);
  ASSERT_EQ(tokens.lines[0].points.size(), sizes.size());
  ASSERT_EQ(tokens.lines[1].points.size(), sizes.size());
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    core::Plan at = plan;
    at.training.workers = sizes[i];
    core::RunResult written = sim::predict_analytic(at);
    EXPECT_DOUBLE_EQ(tokens.lines[1].points[i].y(), written.model_parallel->tokens_per_s);
    EXPECT_DOUBLE_EQ(mfu.lines[1].points[i].y(), 100 * written.model_parallel->mfu);
    sim::SplitSearchOptions one;
    one.top = 1;
    sim::SplitSearch searched = sim::search_splits(at, one);
    ASSERT_FALSE(searched.best.empty());
    EXPECT_DOUBLE_EQ(tokens.lines[0].points[i].y(),
                     searched.best[0].result.model_parallel->tokens_per_s);
    EXPECT_GE(tokens.lines[0].points[i].y(), tokens.lines[1].points[i].y());
  }
  sim::SplitSearchOptions three;
  three.top = 3;
  core::Plan at512 = plan;
  at512.training.workers = 512;
  std::vector<sim::SplitCandidate> top = sim::search_splits(at512, three).best;
  BarChartData steps = split_breakdown_data(top, own[2], 512);
  ASSERT_EQ(steps.categories.size(), 4);
  EXPECT_TRUE(steps.categories[0].startsWith("plan 8x16x4")) << steps.categories[0].toStdString();
  for (int c = 0; c < 4; ++c) {
    double sum = 0;
    for (const auto& s : steps.stacks) sum += s.points[c].y();
    double step = c == 0 ? own[2]->step_time_s : top[c - 1].result.step_time_s;
    EXPECT_NEAR(sum, step * 1e3, 1e-6 * step * 1e3) << steps.categories[c].toStdString();
  }
  // The pipeline's transfers run beside compute: not stacked, named in the compute part's tip.
  ASSERT_EQ(steps.stacks[0].name, "compute");
  QString in_flight = QString::number(own[2]->model_parallel->pipeline_comm_s * 1e3, 'f', 1);
  ASSERT_GT(own[2]->model_parallel->pipeline_comm_s, 0);
  EXPECT_TRUE(steps.stacks[0].tips[0].contains(
      "in flight beside it (overlapped, not stacked): " + in_flight + " ms"))
      << steps.stacks[0].tips[0].toStdString();
  std::filesystem::create_directories(kShots);
  auto page = curves_page(curves, 512, &plan);
  ASSERT_TRUE(save_page(*page, QString::fromStdString((kShots / "splits-gpt3.png").string())));
}

// The table under the step chart lists the search's ten best splits at the chosen size, as
// searching a plan of that many workers gives them; double-clicking one loads it into the plan,
// its fields and its memory chart.
TEST(GuiModelParallel, TheSplitTableIsTheSearchsAndLoadsASplit) {
  MainWindow w(quickstart());
  ASSERT_TRUE(w.open_plan(QString::fromStdString(kGpt3)).startsWith("opened"));
  int at = w.breakdown_size()->findText("512");
  ASSERT_GE(at, 0);
  w.breakdown_size()->setCurrentIndex(at);
  SplitTable* table = w.split_table();
  EXPECT_TRUE(table->isVisibleTo(&w));
  core::Plan plan = core::load_plan(kGpt3);
  plan.training.workers = 512;
  plan.parallelism.reset();
  sim::SplitSearchOptions ten;
  ten.top = 10;
  std::vector<sim::SplitCandidate> direct = sim::search_splits(plan, ten).best;
  ASSERT_EQ(table->rowCount(), static_cast<int>(direct.size()));
  for (int r = 0; r < table->rowCount(); ++r) {
    const core::ModelParallelOutcome& m = *direct[r].result.model_parallel;
    EXPECT_EQ(table->item(r, 1)->text().toInt(), m.tensor) << r;
    EXPECT_EQ(table->item(r, 2)->text().toInt(), m.pipeline) << r;
    EXPECT_EQ(table->item(r, 3)->text().toInt(), m.data) << r;
    EXPECT_EQ(table->item(r, 11)->text(), QString::number(direct[r].result.step_time_s, 'f', 3));
  }
  const core::Parallelism& picked = *direct[1].plan.parallelism;
  table->pick(1);
  const core::Parallelism& now = *w.plan_panel()->what_if().plan.parallelism;
  EXPECT_EQ(now.tensor, picked.tensor);
  EXPECT_EQ(now.pipeline, picked.pipeline);
  EXPECT_EQ(now.microbatch, picked.microbatch);
  EXPECT_EQ(now.schedule, picked.schedule);
  EXPECT_EQ(now.virtual_stages, picked.virtual_stages);
  EXPECT_EQ(now.zero, picked.zero);
  auto* tensor = qobject_cast<QLineEdit*>(w.plan_panel()->editor("parallelism.tensor"));
  ASSERT_NE(tensor, nullptr);
  EXPECT_EQ(tensor->text().toInt(), picked.tensor);
  EXPECT_EQ(w.memory_chart()->data().categories.size(), picked.pipeline);
  EXPECT_TRUE(w.statusBar()->currentMessage().startsWith(
      QString("loaded split: tensor %1 x pipeline %2").arg(picked.tensor).arg(picked.pipeline)))
      << w.statusBar()->currentMessage().toStdString();
  w.resize(1500, 1000);
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  QTest::qWait(50);
  std::filesystem::create_directories(kShots);
  ASSERT_TRUE(w.grab().save(QString::fromStdString((kShots / "window-split-table.png").string())));
}

TEST(GuiModelParallel, TheWindowOpensTheGpt3Plan) {
  MainWindow w(quickstart());
  EXPECT_TRUE(w.open_plan(QString::fromStdString(kGpt3)).startsWith("opened"));
  w.resize(1400, 900);
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  QApplication::processEvents();
  // The data-parallel exchange's knobs do not apply to a split plan: folded away until asked for,
  // the split's fields first after the model; a data-parallel plan keeps them in view.
  PlanPanel* panel = w.plan_panel();
  EXPECT_FALSE(panel->row_shown("training.fusion_buffer"));
  EXPECT_FALSE(panel->editor("training.fusion_buffer")->isEnabled());
  EXPECT_TRUE(panel->row_shown("parallelism.tensor"));
  QWidget* workload = panel->findChild<QWidget*>("group-Workload");
  QWidget* split = panel->findChild<QWidget*>("group-Parallelism");
  QWidget* training = panel->findChild<QWidget*>("group-Training");
  ASSERT_TRUE(workload && split && training);
  auto* column = panel->layout();
  EXPECT_EQ(column->indexOf(split), column->indexOf(workload) + 1);
  EXPECT_GT(column->indexOf(training), column->indexOf(split));
  panel->show_unused()->setChecked(true);
  EXPECT_TRUE(panel->row_shown("training.fusion_buffer"));
  panel->show_unused()->setChecked(false);
  // The plan gives the global batch: the batch per worker follows from it, so it is not editable.
  QWidget* batch = w.plan_panel()->editor("training.batch_per_worker");
  ASSERT_NE(batch, nullptr);
  EXPECT_FALSE(batch->isEnabled());
  EXPECT_NE(batch->toolTip().toStdString().find("training.global_batch (1536)"), std::string::npos)
      << batch->toolTip().toStdString();
  std::filesystem::create_directories(kShots);
  QTest::qWait(50);  // the panel's fold settles as a person would see it
  ASSERT_TRUE(
      w.grab().save(QString::fromStdString((kShots / "window-model-parallel.png").string())));
  MainWindow data_parallel(quickstart());
  EXPECT_TRUE(data_parallel.plan_panel()->row_shown("training.fusion_buffer"));
  // 16 stages and 192 micro-batches: the bubble at both ends is 15 of 207 slots a stage.
  EXPECT_TRUE(w.show_pipeline_schedule().startsWith("timeline of "));
  EXPECT_EQ(w.timeline()->view()->trace().tracks.size(), 16u);
  w.timeline()->resize(1200, 700);
  QTest::qWait(50);
  ASSERT_TRUE(w.timeline()->grab().save(
      QString::fromStdString((kShots / "timeline-pipeline-gpt3.png").string())));
}

// The split's fields edit the plan as YAML would, and the memory chart follows: one bar per
// pipeline stage, stacked parameters, gradients, optimizer states and activations, the device's
// memory as a line. Four stages hold a quarter of the layers each, so stage 0 needs less.
TEST(GuiModelParallel, EditingThePipelineChangesTheMemoryBars) {
  const std::string plan = testing::source_path("experiments/model-parallel/gpt-7.5b-64.yaml");
  MainWindow w(quickstart());
  EXPECT_FALSE(w.memory_chart()->widget()->isVisibleTo(&w));  // a data-parallel plan: no bars
  ASSERT_TRUE(w.open_plan(QString::fromStdString(plan)).startsWith("opened"));
  w.resize(1500, 950);
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  EXPECT_TRUE(w.memory_chart()->widget()->isVisible());
  BarChartData one = w.memory_chart()->data();
  ASSERT_EQ(one.categories.size(), 1);
  ASSERT_EQ(one.stacks.size(), 4u);
  EXPECT_DOUBLE_EQ(one.limit, 80.0);
  core::MemoryBreakdown m = core::stage_memory(core::load_plan(plan), 0);
  EXPECT_NEAR(one.stacks[0].points[0].y(), m.parameters / 1e9, 1e-9);
  EXPECT_NEAR(one.stacks[3].points[0].y(), m.activations / 1e9, 1e-9);

  QWidget* pipeline = w.plan_panel()->editor("parallelism.pipeline");
  ASSERT_NE(pipeline, nullptr);
  EXPECT_TRUE(pipeline->isEnabled());
  type_into(pipeline, "4");
  EXPECT_TRUE(w.plan_panel()->error("parallelism.pipeline").isEmpty())
      << w.plan_panel()->error("parallelism.pipeline").toStdString();
  QApplication::processEvents();
  BarChartData four = w.memory_chart()->data();
  ASSERT_EQ(four.categories.size(), 4);
  double stage0_one = 0, stage0_four = 0;
  for (int k = 0; k < 4; ++k) {
    stage0_one += one.stacks[k].points[0].y();
    stage0_four += four.stacks[k].points[0].y();
  }
  EXPECT_LT(stage0_four, stage0_one);
  QTest::qWait(100);  // the charts' layout settles as a person would see it
  std::filesystem::create_directories(kShots);
  ASSERT_TRUE(w.grab().save(QString::fromStdString((kShots / "window-memory-bars.png").string())));
  EXPECT_TRUE(cut_labels(w).isEmpty()) << cut_labels(w).join("\n").toStdString();
  // The schedule follows the edit too: four stages, each running every micro-batch forward and
  // backward; the last stage starts once the first three have passed the first micro-batch on (the
  // bubble, seen in the screenshot as the staircase at both ends).
  EXPECT_TRUE(w.show_pipeline_schedule().startsWith("timeline of ")) << "no timeline";
  ASSERT_NE(w.timeline(), nullptr);
  const TimelineTrace& t = w.timeline()->view()->trace();
  ASSERT_EQ(t.tracks.size(), 4u);
  core::ModelSplit split = core::model_split(w.plan_panel()->what_if().plan);
  for (const auto& track : t.tracks)
    EXPECT_EQ(track.spans.size(), 2u * split.microbatches) << track.name;
  EXPECT_NEAR(t.tracks[0].spans.front().start, t.start, 1e-12);
  EXPECT_GT(t.tracks[3].spans.front().start, t.tracks[0].spans.front().end);
  EXPECT_NE(t.process.find("1f1b, 4 stages"), std::string::npos) << t.process;
  w.timeline()->resize(1200, 500);
  w.timeline()->show();
  QTest::qWait(50);
  ASSERT_TRUE(w.timeline()->grab().save(
      QString::fromStdString((kShots / "timeline-pipeline.png").string())));
  // The fields do not apply to a workload without transformer dimensions.
  MainWindow dp(quickstart());
  EXPECT_FALSE(dp.plan_panel()->editor("parallelism.tensor")->isEnabled());
  EXPECT_TRUE(dp.show_pipeline_schedule().startsWith("the plan has no pipeline"));
}

// The planning panel searches a transformer plan's splits on request: the best split at each size
// is the search's own at that size, and the smallest cluster for the target is the CLI's.
TEST(GuiModelParallel, PlanningPanelListsTheBestSplitPerSize) {
  MainWindow w(quickstart());
  EXPECT_FALSE(w.answer_panel()->splits_button()->isVisibleTo(&w));  // nothing to split
  ASSERT_TRUE(w.open_plan(QString::fromStdString(kGpt3)).startsWith("opened"));
  EXPECT_TRUE(w.answer_panel()->splits_button()->isVisibleTo(&w));
  // A transformer's targets are in tokens: 102,400 tokens/s are 50 sequences of 2,048 a second.
  EXPECT_EQ(w.answer_panel()->label("throughput"), "target tokens/s");
  EXPECT_EQ(w.answer_panel()->label("samples_per_epoch"), "tokens to train");
  type_into(w.answer_panel()->input("throughput"), "102400");
  QString said = w.answer_panel()->search_splits();
  const auto& rows = w.answer_panel()->split_rows();
  core::Plan plan = core::load_plan(kGpt3);
  ASSERT_EQ(rows.size(), sim::planner_sizes(plan, 1024).size());
  for (const auto& row : rows) {
    core::Plan at = plan;
    at.training.workers = row.workers;
    at.parallelism.reset();
    sim::SplitSearch direct = sim::search_splits(at);
    ASSERT_EQ(row.best.has_value(), !direct.best.empty()) << row.workers;
    if (row.best)
      EXPECT_DOUBLE_EQ(row.best->result.step_time_s, direct.best.front().result.step_time_s)
          << row.workers;
  }
  ASSERT_TRUE(w.answer_panel()->split_answer().has_value());
  auto cli_answer = nlohmann::json::parse(
      cli("plan " + kGpt3 + " --search --top 1 --target-throughput 50 --max-workers 1024 --json")
          .text);
  EXPECT_EQ(said.toStdString(), cli_answer["target"]["message"].get<std::string>());
  // The charts plot the searched best split at each size: tokens/s, and its MFU.
  auto line = [](const LineChartData& d, const QString& name) -> const SeriesData* {
    for (const auto& s : d.lines)
      if (s.name == name) return &s;
    return nullptr;
  };
  const SeriesData* best = line(w.throughput_chart()->data(), "best split");
  const SeriesData* mfu = line(w.efficiency_chart()->data(), "best split");
  ASSERT_NE(best, nullptr);
  ASSERT_NE(mfu, nullptr);
  int with_split = 0;
  for (const auto& row : rows) {
    if (!row.best) continue;
    ASSERT_LT(with_split, best->points.size());
    EXPECT_EQ(best->points[with_split].x(), row.workers);
    EXPECT_DOUBLE_EQ(best->points[with_split].y(), row.best->result.model_parallel->tokens_per_s);
    EXPECT_DOUBLE_EQ(mfu->points[with_split].y(), 100 * row.best->result.model_parallel->mfu);
    ++with_split;
  }
  EXPECT_EQ(best->points.size(), with_split);
  w.resize(1500, 1000);
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  QTest::qWait(50);
  ASSERT_TRUE(w.answer_panel()->grab().save(
      QString::fromStdString((kShots / "answer-splits.png").string())));
  ASSERT_TRUE(w.grab().save(QString::fromStdString((kShots / "window-best-split.png").string())));
  // Another plan forgets the search: its line is the best split at the window's own sizes. A
  // plan without a transformer is planned in samples again.
  ASSERT_TRUE(w.open_plan(QString::fromStdString(kGpt3)).startsWith("opened"));
  EXPECT_TRUE(w.answer_panel()->split_rows().empty());
  const SeriesData* again = line(w.throughput_chart()->data(), "best split");
  ASSERT_NE(again, nullptr);
  ASSERT_FALSE(again->points.isEmpty());
  EXPECT_EQ(again->points.front().x(), w.curves().workers.front());
  ASSERT_TRUE(w.open_plan(QString::fromStdString(kQuickstart)).startsWith("opened"));
  EXPECT_EQ(w.answer_panel()->label("throughput"), "target samples/s");
  EXPECT_EQ(w.answer_panel()->input("throughput")->text(), "50K");
}

}  // namespace
}  // namespace scaleout::gui

namespace scaleout::gui {
namespace {

// Shows the window at 1400 x 900 as a person would see it and saves it as `name`.
void shoot_window(MainWindow& w, const char* name) {
  w.resize(1400, 900);
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  QApplication::processEvents();
  QTest::qWait(50);
  std::filesystem::create_directories(kShots);
  ASSERT_TRUE(w.grab().save(QString::fromStdString((kShots / name).string())));
}

// Llama 3 405B at 131,072 tokens with context 16: the split's fields show the context degree and
// its exchange, and the step chart stacks what of the key-value exchanges the attention left
// exposed, as the closed form gives it; the window is grabbed for a person to look at.
TEST(GuiModelParallel, AContextParallelPlanShowsItsContextExchange) {
  const std::string path =
      testing::source_path("experiments/model-parallel/llama3-405b-128k-h100.yaml");
  MainWindow w(quickstart());
  ASSERT_TRUE(w.open_plan(QString::fromStdString(path)).startsWith("opened"));
  auto* context = dynamic_cast<QLineEdit*>(w.plan_panel()->editor("parallelism.context"));
  ASSERT_NE(context, nullptr);
  EXPECT_EQ(context->text(), "16");
  auto* exchange = dynamic_cast<QComboBox*>(w.plan_panel()->editor("parallelism.context_exchange"));
  ASSERT_NE(exchange, nullptr);
  EXPECT_EQ(exchange->currentText(), "allgather");
  EXPECT_TRUE(exchange->isEnabled());
  // The plan's interleaved schedule runs 8 chunks a stage.
  auto* chunks = dynamic_cast<QLineEdit*>(w.plan_panel()->editor("parallelism.virtual_stages"));
  ASSERT_NE(chunks, nullptr);
  EXPECT_TRUE(chunks->isEnabled());
  EXPECT_EQ(chunks->text(), "8");
  core::Plan plan = core::load_plan(path);
  core::RunResult own = sim::predict_analytic(plan);
  ASSERT_GT(own.model_parallel->context_comm_s, 0);
  sim::SplitSearchOptions three;
  three.top = 3;
  std::vector<sim::SplitCandidate> top = sim::search_splits(plan, three).best;
  ASSERT_FALSE(top.empty());
  BarChartData steps = split_breakdown_data(top, &own, plan.training.workers);
  EXPECT_TRUE(steps.categories[0].contains("cp16")) << steps.categories[0].toStdString();
  bool stacked = false;
  for (const auto& s : steps.stacks)
    if (s.name == "context") {
      stacked = true;
      EXPECT_DOUBLE_EQ(s.points[0].y(), own.model_parallel->context_comm_s * 1e3);
    }
  EXPECT_TRUE(stacked);
  int at = w.breakdown_size()->findText("16384");
  if (at >= 0) w.breakdown_size()->setCurrentIndex(at);
  shoot_window(w, "window-context.png");
}

// DeepSeek-V3's plan: its deduplicated all-to-all and FP8 dispatch show as the split's choices,
// enabled with expert parallelism; the breakdown opens at the plan's 2,048 workers.
TEST(GuiModelParallel, AnExpertParallelPlanShowsItsExchangeAndDispatch) {
  MainWindow w(quickstart());
  ASSERT_TRUE(w.open_plan(QString::fromStdString(testing::source_path(
                              "experiments/deepseek-v3/deepseek-v3-2048.yaml")))
                  .startsWith("opened"));
  auto choice = [&](const char* field) {
    return dynamic_cast<QComboBox*>(w.plan_panel()->editor(field));
  };
  QComboBox* exchange = choice("parallelism.expert_alltoall");
  QComboBox* dispatch = choice("parallelism.expert_dispatch_precision");
  ASSERT_TRUE(exchange && dispatch);
  EXPECT_EQ(exchange->currentText(), "deduplicated");
  EXPECT_EQ(dispatch->currentText(), "fp8");
  EXPECT_TRUE(dispatch->isEnabled());
  // Opened after the quickstart, its step-time breakdown is at its own size, not the last plan's.
  EXPECT_EQ(w.breakdown_size()->currentText(), "2048");
  shoot_window(w, "window-experts.png");
}

}  // namespace
}  // namespace scaleout::gui

// The timeline of the chosen point straight from the window (simulated with a trace on a worker
// thread, Cancel), and the SVG export of the timeline and the topology drawing.
#include "gui/point_timeline.hpp"

#include <gtest/gtest.h>

#include <QComboBox>
#include <QPushButton>
#include <QTest>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "core/parallel/pipeline_schedule.hpp"
#include "gui/main_window.hpp"
#include "gui/plan_panel.hpp"
#include "gui/timeline_view.hpp"
#include "gui/timeline_window.hpp"
#include "gui/topology_view.hpp"
#include "tests/core/plan_text.hpp"
#include "tests/gui/gui_support.hpp"

namespace scaleout::gui {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

TEST(GuiPointTimeline, ChosenPointOpensWithOneRowPerRank) {
  MainWindow w(quickstart());  // the plan's strategy: ring
  w.breakdown_size()->setCurrentText("16");
  QString said;
  w.show_point_timeline();
  EXPECT_TRUE(w.point_timeline()->running());
  EXPECT_TRUE(w.point_timeline()->isVisibleTo(&w));
  ASSERT_TRUE(QTest::qWaitFor([&] { return !w.point_timeline()->running(); }, 120000));
  ASSERT_NE(w.timeline(), nullptr);
  EXPECT_TRUE(w.timeline()->isVisible());
  const TimelineTrace& t = w.timeline()->view()->trace();
  EXPECT_EQ(t.tracks.size(), 16u);  // one per rank of that size
  for (const auto& track : t.tracks) EXPECT_FALSE(track.spans.empty()) << track.name;
  EXPECT_GT(t.end - t.start, 0);
  EXPECT_EQ(timeline_rows(t, 64).size(), 16u);
  EXPECT_NE(t.process.find("ring"), std::string::npos) << t.process;
  fs::create_directories(kShots);
  w.timeline()->resize(1200, 720);
  ASSERT_TRUE(
      w.timeline()->grab().save(QString::fromStdString((kShots / "timeline-point.png").string())));

  // SVG of the timeline: a drawing with its rows' names.
  fs::path svg = kShots / "timeline-point.svg";
  EXPECT_TRUE(w.timeline()->export_svg(QString::fromStdString(svg.string())).startsWith("wrote"));
  std::string text = read_text(svg);
  EXPECT_NE(text.find("<svg"), std::string::npos);
  EXPECT_NE(text.find(t.tracks[0].name), std::string::npos) << "row labels are text";
  EXPECT_FALSE(w.timeline()->export_svg("/nonexistent-dir/t.svg").startsWith("wrote"));
}

// Tensor 2 x pipeline 4 x data 2 on two nodes: 8 micro-batches a replica through 4 stages.
core::Plan pipeline_plan(const std::string& schedule) {
  return testing::load_text(
      "gui-sim-" + schedule,
      std::string(testing::kInlineCluster) +
          "workload:\n  name: gpt\n"
          "  transformer: { layers: 8, hidden: 1024, heads: 8, sequence: 512, vocabulary: 1000 }\n"
          "parallelism: { tensor: 2, pipeline: 4, microbatch: 1, schedule: " +
          schedule +
          " }\n"
          "strategy: { kind: ring }\ntraining: { workers: 16, global_batch: 16 }\n");
}

// Simulates the window's plan's pipeline schedule and waits for its timeline to open.
void simulate_schedule(MainWindow& w) {
  EXPECT_TRUE(w.simulate_pipeline_schedule().startsWith("simulating"));
  ASSERT_TRUE(QTest::qWaitFor([&] { return !w.point_timeline()->running(); }, 120000));
  ASSERT_NE(w.timeline(), nullptr);
}

// The names of a row's passes (forward, backward and weight spans), in time order.
std::vector<std::string> pass_names(const TimelineTrace& t, const TimelineTrack& track) {
  std::vector<std::string> out;
  for (const auto& span : track.spans) {
    const std::string& name = t.names[static_cast<std::size_t>(span.name)];
    if (name.rfind("forward", 0) == 0 || name.rfind("backward", 0) == 0 ||
        name.rfind("weight", 0) == 0)
      out.push_back(name);
  }
  return out;
}

// Shows the timeline at a fixed size and saves what a user sees as `file` in the screenshots.
void save_timeline(MainWindow& w, const std::string& file) {
  w.timeline()->resize(1200, 720);
  w.timeline()->show();
  QTest::qWait(50);
  ASSERT_TRUE(w.timeline()->grab().save(QString::fromStdString((kShots / file).string())));
}

TEST(GuiPointTimeline, APipelineScheduleAsSimGridRunsIt) {
  MainWindow w(pipeline_plan("1f1b"));
  ASSERT_NO_FATAL_FAILURE(simulate_schedule(w));
  const TimelineTrace& t = w.timeline()->view()->trace();
  // Rank r's row is "stage s, rank r": every rank runs each micro-batch forward and backward.
  std::map<std::string, const TimelineTrack*> by_name;
  for (const auto& track : t.tracks) by_name[track.name] = &track;
  auto passes = [&t](const TimelineTrack& track) {
    std::vector<const TimelineSpan*> out;
    for (const auto& s : track.spans) {
      const std::string& name = t.names[static_cast<std::size_t>(s.name)];
      if (name.find("forward") == 0 || name.find("backward") == 0) out.push_back(&s);
    }
    return out;
  };
  ASSERT_TRUE(by_name.count("stage 0, rank 0")) << t.tracks.front().name;
  ASSERT_TRUE(by_name.count("stage 3, rank 12"));
  auto first = passes(*by_name["stage 0, rank 0"]), last = passes(*by_name["stage 3, rank 12"]);
  EXPECT_EQ(first.size(), 16u);
  EXPECT_EQ(last.size(), 16u);
  // The bubble: the last stage starts after the first has passed micro-batch 0 on. Passes are
  // drawn as compute (forward light, backward dark), not as communication.
  EXPECT_GT(last.front()->start, first.front()->end);
  EXPECT_EQ(first.front()->phase, Phase::kForward);
  EXPECT_EQ(first.back()->phase, Phase::kCompute);
  save_timeline(w, "timeline-pipeline-sim.png");
  MainWindow dp(quickstart());
  EXPECT_TRUE(dp.simulate_pipeline_schedule().startsWith("the plan has no pipeline"));
}

// ZB-H1 as SimGrid runs it: each micro-batch's weight pass apart from its backward, drawn as
// compute; the last stage keeps 3 of them for the end, where 1F1B leaves it idle.
TEST(GuiPointTimeline, TheZeroBubbleSchedulesWeightPasses) {
  MainWindow w(pipeline_plan("zero_bubble"));
  // Without a context group there is no key-value exchange to pick.
  EXPECT_FALSE(w.plan_panel()->editor("parallelism.context_exchange")->isEnabled());
  ASSERT_NO_FATAL_FAILURE(simulate_schedule(w));
  const TimelineTrace& t = w.timeline()->view()->trace();
  for (const auto& track : t.tracks) {
    if (track.name != "stage 3, rank 12") continue;
    std::vector<std::string> passes;
    for (const auto& span : track.spans) {
      const std::string& name = t.names[static_cast<std::size_t>(span.name)];
      if (name.find("weight") == 0) EXPECT_EQ(span.phase, Phase::kWeight);
      if (name.find("forward") == 0 || name.find("backward") == 0 || name.find("weight") == 0)
        passes.push_back(name.substr(0, name.find(' ')));
    }
    ASSERT_EQ(passes.size(), 24u);  // 8 micro-batches: forward, backward, weight
    // After the last backward, the weight passes of micro-batches 4-7.
    EXPECT_EQ(std::vector<std::string>(passes.end() - 5, passes.end()),
              (std::vector<std::string>{"backward", "weight", "weight", "weight", "weight"}));
  }
  save_timeline(w, "timeline-pipeline-zero-bubble.png");
}

// DualPipeV as SimGrid runs it: every stage passes each micro-batch forward and backward through
// both its chunks, with the weight passes its schedule leaves apart; the last stage turns a
// micro-batch from chunk 0 to chunk 1 before any backward.
TEST(GuiPointTimeline, DualPipeVRunsBothChunksOfEveryStage) {
  MainWindow w(pipeline_plan("dualpipev"));
  ASSERT_NO_FATAL_FAILURE(simulate_schedule(w));
  const TimelineTrace& t = w.timeline()->view()->trace();
  int checked = 0;
  for (const auto& track : t.tracks) {
    if (track.name.rfind("stage ", 0) != 0) continue;
    int stage = std::stoi(track.name.substr(6));  // "stage S, rank R"
    auto ops = core::stage_schedule(core::PipelineScheduleKind::kDualPipeV, stage, 4, 8, 2);
    std::map<std::string, int> count;
    std::vector<std::string> names = pass_names(t, track);
    for (const std::string& name : names) ++count[name.substr(0, name.find(' '))];
    EXPECT_EQ(count["forward"], 16) << track.name;
    EXPECT_EQ(count["backward"], 16) << track.name;
    EXPECT_EQ(count["weight"], std::count_if(ops.begin(), ops.end(), [](const core::PipeOp& op) {
                return op.kind == core::PipeOp::Kind::kWeight;
              }));
    if (stage == 3) EXPECT_EQ(names.at(1), "forward 0 (chunk 1)") << track.name;
    ++checked;
  }
  EXPECT_EQ(checked, 16);
  save_timeline(w, "timeline-pipeline-dualpipev.png");
}

// With experts (pipeline 4 x expert 4) DualPipeV's pairs overlap: a pair's forward computes in
// pieces between its backward's, each beside the other's all-to-alls, so each stage's row shows a
// forward's pieces on both sides of a backward's; every op still appears, each micro-batch's
// forward and backward through both chunks.
TEST(GuiPointTimeline, DualPipeVPairsInterleaveTheirPassesWithExperts) {
  MainWindow w(testing::load_text(
      "gui-sim-dualpipev-experts",
      std::string(testing::kInlineCluster) +
          "workload:\n  name: moe\n"
          "  transformer: { layers: 8, hidden: 1024, heads: 8, sequence: 512, vocabulary: 1000,"
          " moe: { experts: 8, top_k: 2 } }\n"
          "parallelism: { pipeline: 4, expert: 4, microbatch: 1, schedule: dualpipev }\n"
          "strategy: { kind: ring }\ntraining: { workers: 16, global_batch: 32 }\n"));
  ASSERT_NO_FATAL_FAILURE(simulate_schedule(w));
  const TimelineTrace& t = w.timeline()->view()->trace();
  int checked = 0;
  for (const auto& track : t.tracks) {
    if (track.name.rfind("stage ", 0) != 0) continue;
    std::vector<std::string> names;  // the forward and backward spans in time order
    for (const std::string& name : pass_names(t, track))
      if (name.rfind("weight", 0) != 0) names.push_back(name);
    std::set<std::string> ops(names.begin(), names.end());
    EXPECT_EQ(ops.size(), 32u) << track.name;  // 8 micro-batches x 2 chunks x forward, backward
    int interleaved = 0;                       // a forward's pieces on both sides of a backward's
    for (std::size_t i = 0; i + 2 < names.size(); ++i)
      interleaved += names[i] == names[i + 2] && names[i].rfind("forward", 0) == 0 &&
                     names[i + 1].rfind("backward", 0) == 0;
    EXPECT_GT(interleaved, 0) << track.name;
    ++checked;
  }
  EXPECT_EQ(checked, 16);
  save_timeline(w, "timeline-pipeline-dualpipev-experts.png");
}

TEST(GuiPointTimeline, CancelStopsTheSimulation) {
  MainWindow w(quickstart());
  w.breakdown_size()->setCurrentText("256");
  QString failure;
  w.point_timeline()->on_failure([&](const QString& why) { failure = why; });
  w.show_point_timeline();
  ASSERT_TRUE(w.point_timeline()->running());
  w.point_timeline()->cancel_button()->click();
  ASSERT_TRUE(QTest::qWaitFor([&] { return !w.point_timeline()->running(); }, 10000));
  EXPECT_EQ(failure, "timeline cancelled");
  EXPECT_EQ(w.timeline(), nullptr) << "nothing opened";
}

// A large point takes seconds: the bar says how many messages its simulation has sent so far.
TEST(GuiPointTimeline, ALongSimulationShowsTheMessagesSentSoFar) {
  PointTimeline bar;
  bar.resize(900, 40);
  bar.start(quickstart(), core::StrategyKind::kRing, 4096);
  ASSERT_TRUE(bar.running());
  auto counting = [&] {
    QString s = bar.status();
    return s.contains(" of about ") && !s.contains(": 0 of");
  };
  bool seen = QTest::qWaitFor(counting, 60000);
  QString status = bar.status();
  EXPECT_TRUE(seen) << status.toStdString();
  EXPECT_TRUE(status.startsWith("simulating ring on 4096 workers for its timeline: "))
      << status.toStdString();
  fs::create_directories(kShots);
  EXPECT_TRUE(bar.grab().save(QString::fromStdString((kShots / "timeline-progress.png").string())));
  bar.cancel_button()->click();
  ASSERT_TRUE(QTest::qWaitFor([&] { return !bar.running(); }, 10000));
}

TEST(GuiPointTimeline, TopologyDrawingExportsAsSvg) {
  MainWindow w(quickstart());
  w.breakdown_size()->setCurrentText("32");
  fs::path svg = kShots / "topology.svg";
  fs::create_directories(kShots);
  QString said = w.export_topology_svg(QString::fromStdString(svg.string()));
  EXPECT_TRUE(said.startsWith("wrote")) << said.toStdString();
  std::string text = read_text(svg);
  EXPECT_EQ(text.rfind("<?xml", 0), 0u);
  EXPECT_NE(text.find("<svg"), std::string::npos);
  EXPECT_NE(text.find("node3"), std::string::npos) << "node names are text";
  EXPECT_FALSE(w.export_topology_svg("/nonexistent-dir/t.svg").startsWith("wrote"));
}

}  // namespace
}  // namespace scaleout::gui

// What the window does with the plan, headless: the planning answer is `scaleout plan`'s,
// measured runs carry `compare`'s error, SimGrid refinement runs off the window's thread and
// stops on Cancel, saved plans load back, and pictures land under the build folder.
#include <gtest/gtest.h>

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QLineEdit>
#include <QPushButton>
#include <QTest>
#include <QTimer>
#include <QToolTip>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "analytic/analytic.hpp"
#include "core/plan/plan_loader.hpp"
#include "core/plan/plan_writer.hpp"
#include "explore/planner.hpp"
#include "explore/study.hpp"
#include "gui/answer_panel.hpp"
#include "gui/chart_data.hpp"
#include "gui/curves.hpp"
#include "gui/main_window.hpp"
#include "gui/plan_panel.hpp"
#include "gui/refine_bar.hpp"
#include "gui/render.hpp"
#include "gui/sweep_csv.hpp"
#include "tests/gui/gui_support.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::gui {
namespace {

namespace fs = std::filesystem;
using testing::source_path;

struct Target {
  const char* name;
  bool by_time;
  QString throughput, deadline, samples, epochs;
  std::string cli_args;
  bool reachable;
};

TEST(GuiWindow, PlanAnswerEqualsThePlannerAndTheCli) {
  MainWindow w(quickstart());
  AnswerPanel* panel = w.answer_panel();
  const Target targets[] = {
      {"throughput", false, "50K", "", "", "", "--target-throughput 50000", true},
      {"time to train", true, "", "86400", "1.28M", "90",
       "--time-to-train 86400 --samples-per-epoch 1.28M --epochs 90", true},
      {"out of reach", false, "1000000000", "", "", "", "--target-throughput 1e9", false},
  };
  for (const auto& t : targets) {
    SCOPED_TRACE(t.name);
    panel->target_kind()->setCurrentIndex(t.by_time ? 1 : 0);
    if (t.by_time) {
      type_into(panel->input("deadline"), t.deadline);
      type_into(panel->input("samples_per_epoch"), t.samples);
      type_into(panel->input("epochs"), t.epochs);
    } else {
      type_into(panel->input("throughput"), t.throughput);
    }
    ASSERT_TRUE(panel->answer().has_value());
    const sim::PlanAnswer& gui = *panel->answer();
    EXPECT_EQ(gui.reachable, t.reachable) << gui.message;

    sim::PlanRequest request;
    request.min_efficiency = 0.5;  // the panel's default
    if (t.by_time) {
      request.target = {sim::PlanTarget::Kind::kTimeToTrain, 0, 86400, 1.28e6, 90};
    } else {
      request.target.throughput = t.reachable ? 50000 : 1e9;
    }
    EXPECT_EQ(gui.message, sim::plan_cluster(quickstart(), request).message);

    auto o = cli("plan " + kQuickstart + " " + t.cli_args + " --min-efficiency 0.5 --json");
    EXPECT_EQ(o.code, t.reachable ? 0 : 1) << o.text;
    EXPECT_EQ(gui.message, nlohmann::json::parse(o.text)["message"].get<std::string>());
  }
  EXPECT_EQ(panel->answer()->message.rfind("not reachable with at most 1024 workers", 0), 0u);
}

// A run is placed at its own strategy and size on the open plan's cluster and model; a run of
// another cluster has no prediction there and is refused, naming both.
TEST(GuiWindow, AMeasuredRunOfAnotherClusterIsRefused) {
  fs::path dir = fs::temp_directory_path() / "scaleout-gui-other-cluster";
  fs::create_directories(dir);
  write_runs(dir / "predicted.json", dir / "measured.json");
  auto j = nlohmann::json::parse(std::ifstream(dir / "measured.json"));
  j["cluster"] = "dgx-a100-ib";
  std::ofstream(dir / "other.json") << j.dump(2);
  MainWindow w(quickstart());
  QString status = w.open_result(QString::fromStdString((dir / "other.json").string()));
  EXPECT_TRUE(w.measured().empty());
  EXPECT_TRUE(status.contains("not of the open plan's resnet50 on v100-ib-switch"))
      << status.toStdString();
  fs::remove_all(dir);
}

TEST(GuiWindow, MeasuredRunSitsOnTheChartWithCompareError) {
  fs::path dir = fs::temp_directory_path() / "scaleout-gui-measured";
  fs::create_directories(dir);
  write_runs(dir / "predicted.json", dir / "measured.json");
  MainWindow w(quickstart());
  QString status = w.open_result(QString::fromStdString((dir / "measured.json").string()));
  ASSERT_EQ(w.measured().size(), 1u) << status.toStdString();
  const MeasuredPoint& m = w.measured()[0];

  auto dots = series_of(w.throughput_chart(), false);
  bool found = false;
  for (QXYSeries* s : dots)
    for (const QPointF& p : s->points())
      found |= p.x() == 16 && p.y() == m.measured.throughput_samples_per_s;
  EXPECT_TRUE(found);

  auto c = cli("compare " + (dir / "predicted.json").string() + " " +
               (dir / "measured.json").string() + " --json");
  ASSERT_EQ(c.code, 0) << c.text;
  auto j = nlohmann::json::parse(c.text);
  expect_relative(m.throughput_error, j["throughput_samples_per_s"]["relative_error"].get<double>(),
                  1e-9, "throughput error");
  expect_relative(m.step_time_error, j["step_time_s"]["relative_error"].get<double>(), 1e-9,
                  "step error");
  EXPECT_NEAR(m.throughput_error, 0.25, 1e-9);  // predicted / (0.8 predicted) - 1

  EXPECT_FALSE(w.open_result("/nonexistent.json").isEmpty());
  EXPECT_EQ(w.measured().size(), 1u);
  fs::remove_all(dir);
}

TEST(GuiWindow, RefineRunsOnAWorkerThreadAndReplacesPoints) {
  MainWindow w(quickstart());
  type_into(w.plan_panel()->editor("sweep.max_workers"), "64");  // 8 .. 64: 16 simulations
  ASSERT_EQ(w.curves().workers, (std::vector<int>{8, 16, 32, 64}));
  int ticks_while_running = 0;
  QTimer timer;
  QObject::connect(&timer, &QTimer::timeout,
                   [&] { ticks_while_running += w.refine_bar()->running(); });
  timer.start(1);
  QTest::mouseClick(w.refine_bar()->refine_button(), Qt::LeftButton);
  EXPECT_TRUE(w.refine_bar()->running());  // the click returned while simulations run
  ASSERT_TRUE(QTest::qWaitFor([&] { return !w.refine_bar()->running(); }, 120000));
  EXPECT_GE(ticks_while_running, 1);  // the window's thread kept turning meanwhile
  EXPECT_EQ(simulated_points(w), 16);
  EXPECT_EQ(w.refine_bar()->status(), "16 of 16 points simulated");
  auto rings = series_of(w.throughput_chart(), false);
  ASSERT_EQ(rings.size(), 1);
  EXPECT_EQ(rings[0]->count(), 16);
  // A simulated point is the simulator's own number for that configuration.
  core::Plan p = quickstart();
  p.training.workers = 16;
  const core::RunResult* ring16 = find_point(w.curves(), "ring", 16);
  ASSERT_NE(ring16, nullptr);
  EXPECT_EQ(ring16->engine, "sim");
  EXPECT_NEAR(ring16->throughput_samples_per_s / sim::predict_analytic(p).throughput_samples_per_s,
              1.0, 0.1);
}

TEST(GuiWindow, CancelStopsRefiningAndKeepsFinishedPoints) {
  MainWindow w(quickstart());  // 8 .. 256 refined: 24 simulations
  QTest::mouseClick(w.refine_bar()->refine_button(), Qt::LeftButton);
  ASSERT_TRUE(QTest::qWaitFor([&] { return simulated_points(w) >= 1; }, 60000));
  QTest::mouseClick(w.refine_bar()->cancel_button(), Qt::LeftButton);
  ASSERT_TRUE(QTest::qWaitFor([&] { return !w.refine_bar()->running(); }, 10000));
  int kept = simulated_points(w);
  EXPECT_GE(kept, 1);
  EXPECT_LT(kept, 24);
  EXPECT_TRUE(w.refine_bar()->status().startsWith("cancelled"))
      << w.refine_bar()->status().toStdString();
  QTest::qWait(200);  // nothing arrives after a cancel
  EXPECT_EQ(simulated_points(w), kept);
  EXPECT_TRUE(w.refine_bar()->refine_button()->isEnabled());
}

TEST(PlanWriter, SavedPlansLoadToTheSamePlan) {
  fs::path dir = fs::temp_directory_path() / "scaleout-gui-save";
  fs::create_directories(dir);
  // Every knob the writer knows, on top of the quickstart: async PS, stragglers, failures.
  std::ifstream in(kQuickstart);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  text.replace(text.find("../topologies"), 13, source_path("topologies"));
  text.replace(text.find("../models"), 9, source_path("models"));
  text.replace(text.find("placement: dedicated"), 20, "placement: dedicated, mode: async");
  text +=
      "stragglers:\n  slow: { workers: [1, 3], factor: 2.5 }\n"
      "  random: { distribution: lognormal, sigma: 0.3, seed: 9 }\n"
      "failures:\n  - { node: 1, step: 1 }\n  - { node: 2, time: 1.5s }\n"
      "checkpoint: { every: 1, cost: 2s, restart: 30s }\n";
  std::ofstream(dir / "knobs.yaml") << text;
  std::vector<std::string> plans = {(dir / "knobs.yaml").string()};
  for (const auto& path : testing::bundled_plans()) plans.push_back(path);
  for (const auto& path : plans) {
    SCOPED_TRACE(path);
    core::Plan original = core::load_plan(path);
    fs::path saved = dir / "saved.yaml";
    core::save_plan(original, saved.string());
    core::Plan again = core::load_plan(saved.string());
    EXPECT_EQ(core::plan_to_yaml(again), core::plan_to_yaml(original));
    EXPECT_EQ(again.cluster.nic.bandwidth, original.cluster.nic.bandwidth);
    EXPECT_EQ(again.workload.flops_per_sample, original.workload.flops_per_sample);
    EXPECT_EQ(again.workload.layers.size(), original.workload.layers.size());
    EXPECT_EQ(again.stragglers.slow_workers, original.stragglers.slow_workers);
    EXPECT_EQ(again.resilience.failures.size(), original.resilience.failures.size());
    // The command line predicts the same from both.
    auto a = cli("simulate " + path + " --engine analytic --json");
    auto b = cli("simulate " + saved.string() + " --engine analytic --json");
    ASSERT_EQ(a.code, 0) << a.text;
    ASSERT_EQ(b.code, 0) << b.text;
    // The JSON on stdout; warnings, if any, come on stderr before it.
    auto json_of = [](const std::string& text) {
      return nlohmann::json::parse(text.substr(text.find("{\n")));
    };
    EXPECT_EQ(json_of(a.text)["step_time_s"], json_of(b.text)["step_time_s"]);
  }
  fs::remove_all(dir);
}

TEST(GuiWindow, SaveThenCopyAsCliReproducesTheCurves) {
  fs::path dir = fs::temp_directory_path() / "scaleout-gui-copy";
  fs::create_directories(dir);
  MainWindow w(quickstart());
  EXPECT_FALSE(w.cli_command().isEmpty());  // the opened file holds the plan
  type_into(w.plan_panel()->editor("nic.bandwidth"), "40Gbps");
  type_into(w.plan_panel()->editor("sweep.max_workers"), "256");
  EXPECT_TRUE(w.cli_command().isEmpty());  // edits not saved yet
  QString saved = QString::fromStdString((dir / "edited.yaml").string());
  EXPECT_TRUE(w.save_plan_as(saved).startsWith("saved")) << w.save_plan_as(saved).toStdString();
  std::string command = w.cli_command().toStdString();
  ASSERT_EQ(command.rfind("scaleout sweep " + saved.toStdString() + " --workers 8:256:x2", 0), 0u)
      << command;
  command.replace(command.find("-o sweep.csv"), 12, "-q -o " + (dir / "sweep.csv").string());
  auto o =
      testing::shell(std::string(SCALEOUT_BINARY) + command.substr(std::string("scaleout").size()));
  ASSERT_EQ(o.code, 0) << o.text;
  expect_chart_equals_csv(w, read_sweep_csv((dir / "sweep.csv").string()));
  EXPECT_FALSE(w.save_plan_as("/nonexistent/dir/plan.yaml").startsWith("saved"));
  fs::remove_all(dir);
}

TEST(GuiWindow, ScreenshotsOfTheWindowAndEachChart) {
  fs::create_directories(kShots);
  fs::path dir = fs::temp_directory_path() / "scaleout-gui-shots";
  fs::create_directories(dir);
  write_runs(dir / "predicted.json", dir / "measured.json");
  MainWindow w(quickstart());
  w.open_result(QString::fromStdString((dir / "measured.json").string()));
  w.start_refine();  // ringed points up to 256 workers in the pictures
  ASSERT_TRUE(QTest::qWaitFor([&] { return !w.refine_bar()->running(); }, 120000));
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  QApplication::processEvents();
  const std::pair<const char*, QImage> shots[] = {
      {"main_window.png", w.grab().toImage()},
      {"throughput.png", w.throughput_chart()->image(QSize(800, 520))},
      {"efficiency.png", w.efficiency_chart()->image(QSize(800, 520))},
      {"breakdown.png", w.breakdown_chart()->image(QSize(800, 520))}};
  for (const auto& [name, image] : shots) {
    SCOPED_TRACE(name);
    EXPECT_FALSE(image.isNull());
    EXPECT_GT(image.width(), 300);
    ASSERT_TRUE(image.save(QString::fromStdString((kShots / name).string()), "PNG"));
    EXPECT_GT(fs::file_size(kShots / name), 10000u);  // drawn, not blank
  }
  // The export menu's path: PNG by default, SVG by the suffix, with the chart's text as text.
  fs::path svg = kShots / "throughput.svg", png = kShots / "throughput-export.png";
  ASSERT_TRUE(w.throughput_chart()->save(QString::fromStdString(svg.string()), QSize(800, 520)));
  ASSERT_TRUE(w.throughput_chart()->save(QString::fromStdString(png.string()), QSize(800, 520)));
  std::ifstream in(svg);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.rfind("<?xml", 0), 0u);
  EXPECT_NE(text.find("<svg"), std::string::npos);
  EXPECT_NE(text.find("Throughput"), std::string::npos) << "the title is text, not pixels";
  EXPECT_NE(text.find("<polyline"), std::string::npos) << "the curves are vectors";
  EXPECT_GT(QImage(QString::fromStdString(png.string())).width(), 300);
  EXPECT_FALSE(w.throughput_chart()->save("/nonexistent-dir/x.svg", QSize(800, 520)));
  fs::remove_all(dir);
}

TEST(GuiBinary, RendersHeadlessAndRefusesBadInput) {
  auto gui = [](const std::string& args) {
    return testing::shell(std::string(SCALEOUT_GUI_BINARY) + " " + args);
  };
  fs::create_directories(kShots);
  fs::path csv = kShots / "render-sweep.csv";
  Curves written = cli_sweep(kQuickstart, csv);
  EXPECT_EQ(written.curves.size(), 4u);
  for (const auto& [args, png] :
       {std::pair{"--render " + csv.string(), kShots / "render_sweep.png"},
        std::pair{"--render-plan " + kQuickstart, kShots / "render_plan.png"}}) {
    fs::remove(png);
    auto o = gui(args + " -o " + png.string());
    EXPECT_EQ(o.code, 0) << o.text;
    EXPECT_GT(fs::exists(png) ? fs::file_size(png) : 0, 20000u) << args;
  }
  auto bad = gui("/nonexistent/plan.yaml");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.text.find("error: "), std::string::npos) << bad.text;
  EXPECT_NE(bad.text.find("/nonexistent/plan.yaml"), std::string::npos) << bad.text;
  EXPECT_EQ(gui("--render " + csv.string()).code, 2);  // no -o
  EXPECT_EQ(gui("--render /nonexistent.csv -o " + (kShots / "x.png").string()).code, 2);
  EXPECT_EQ(gui("--render " + csv.string() + " --render-plan " + kQuickstart + " -o x.png").code,
            2);  // one picture at a time
  fs::path study_png = kShots / "render_study.png";
  auto study = gui("--render-study " + source_path("experiments/megatron21/study.yaml") + " -o " +
                   study_png.string());
  EXPECT_EQ(study.code, 0) << study.text;
  EXPECT_GT(QImage(QString::fromStdString(study_png.string())).width(), 600);
}

// The picture's format follows the output's name (.svg: an SVG drawing, as the window exports it;
// it once wrote PNG bytes under any name), and a model-parallel plan's picture adds the memory of
// each stage as a fourth chart.
TEST(GuiBinary, RendersSvgByItsNameAndAModelParallelPlansMemory) {
  auto gui = [](const std::string& args) {
    return testing::shell(std::string(SCALEOUT_GUI_BINARY) + " " + args);
  };
  fs::create_directories(kShots);
  std::string gpt3 = source_path("experiments/model-parallel/gpt3-175b.yaml");
  fs::path svg = kShots / "render_plan_gpt3.svg", png = kShots / "render_plan_gpt3.png";
  ASSERT_EQ(gui("--render-plan " + gpt3 + " -o " + svg.string()).code, 0);
  std::ifstream in(svg);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.rfind("<?xml", 0), 0u) << text.substr(0, 40);
  EXPECT_NE(text.find("<svg"), std::string::npos);
  EXPECT_NE(text.find("GB per device"), std::string::npos);  // the memory chart's axis
  ASSERT_EQ(gui("--render-plan " + gpt3 + " -o " + png.string()).code, 0);
  QImage image(QString::fromStdString(png.string()));
  EXPECT_EQ(image.width(), 2400);  // four charts; three for a data-parallel plan (1800)
}

// A study's picture: one bar per case, in the report's order, each the prediction over the
// published number, in the stack of its kind (held, known gap, calibration) and zero in the others.
// goyal17's rows are known gaps and megatron21's held: both kinds are drawn, each in its own stack.
TEST(GuiStudy, BarsAreEachPredictionOverItsPublishedNumber) {
  for (const char* file : {"experiments/megatron21/study.yaml", "experiments/goyal17/study.yaml"}) {
    sim::StudyOutcome o = sim::run_study(sim::load_study(source_path(file)));
    BarChartData d = study_data(o);
    ASSERT_EQ(d.categories.size(), static_cast<qsizetype>(o.cases.size())) << file;
    ASSERT_EQ(d.stacks.size(), 1) << file;  // one kind of row in each of these studies
    EXPECT_EQ(d.limit, 1.0);
    const char* kind = o.cases.front().study_case.held ? "held to a tolerance" : "known gap";
    EXPECT_EQ(d.stacks[0].name.toStdString(), kind) << file;
    for (std::size_t i = 0; i < o.cases.size(); ++i) {
      const auto& c = o.cases[i];
      EXPECT_DOUBLE_EQ(d.stacks[0].points[i].y(), c.predicted / c.study_case.published) << i;
    }
  }
}

// A crossover study's picture: each sweep's efficiency chart, the same lines as the window draws
// for its curves, titled by the sweep, one under another.
TEST(GuiStudy, ACrossoverStudyDrawsEachSweepsEfficiency) {
  sim::StudyOutcome o =
      sim::run_study(sim::load_study(source_path("experiments/crossover/study.yaml")));
  ASSERT_EQ(o.crossovers.size(), 2u);
  for (const auto& x : o.crossovers) {
    LineChartData d = crossover_data(x), plain = efficiency_data(x.curves);
    EXPECT_TRUE(d.title.contains(QString::fromStdString(x.sweep.name))) << d.title.toStdString();
    ASSERT_EQ(d.lines.size(), plain.lines.size());
    for (qsizetype i = 0; i < d.lines.size(); ++i)
      EXPECT_EQ(d.lines[i].points, plain.lines[i].points);
  }
  QImage image = render_study(o);
  EXPECT_GE(image.height(), 2 * 480);
  fs::create_directories(kShots);
  EXPECT_TRUE(image.save(QString::fromStdString((kShots / "render_crossovers.png").string())));
}

}  // namespace
}  // namespace scaleout::gui

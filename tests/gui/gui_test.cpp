// The window, driven headless (QT_QPA_PLATFORM=offscreen): its charts hold the analytic engine's
// numbers, edits typed into fields act as the same YAML edit, wrong values keep the last good
// curves, the planning answer is `scaleout plan`'s, and screenshots land under the build folder.
#include <gtest/gtest.h>

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QLineEdit>
#include <QLineSeries>
#include <QPushButton>
#include <QScatterSeries>
#include <QTest>
#include <QTimer>
#include <QToolTip>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/plan_loader.hpp"
#include "core/relative_error.hpp"
#include "gui/answer_panel.hpp"
#include "gui/curves.hpp"
#include "gui/main_window.hpp"
#include "gui/plan_panel.hpp"
#include "gui/plan_writer.hpp"
#include "gui/refine_bar.hpp"
#include "gui/sweep_csv.hpp"
#include "sim/analytic.hpp"
#include "sim/planner.hpp"
#include "tests/support/command.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::gui {
namespace {

namespace fs = std::filesystem;
using testing::source_path;

const std::string kQuickstart = source_path("experiments/quickstart.yaml");
const fs::path kShots = SCALEOUT_SCREENSHOT_DIR;

testing::Output cli(const std::string& args) {
  return testing::shell(std::string(SCALEOUT_BINARY) + " " + args);
}

core::Plan quickstart() { return core::load_plan(kQuickstart); }

QList<QXYSeries*> series_of(Chart* chart, bool lines) {
  QList<QXYSeries*> out;
  auto* view = dynamic_cast<QChartView*>(chart->widget());
  for (QAbstractSeries* s : view->chart()->series()) {
    if (lines && qobject_cast<QLineSeries*>(s)) out << static_cast<QXYSeries*>(s);
    if (!lines && qobject_cast<QScatterSeries*>(s)) out << static_cast<QXYSeries*>(s);
  }
  return out;
}

// Every point of the throughput chart, by strategy and workers.
std::map<std::pair<std::string, int>, double> throughput_points(MainWindow& w) {
  std::map<std::pair<std::string, int>, double> out;
  for (QXYSeries* s : series_of(w.throughput_chart(), true))
    for (const QPointF& p : s->points())
      out[{s->name().toStdString(), static_cast<int>(p.x())}] = p.y();
  return out;
}

void type_into(QWidget* editor, const QString& text) {
  auto* line = dynamic_cast<QLineEdit*>(editor);
  ASSERT_NE(line, nullptr);
  line->setFocus();
  QTest::keyClick(line, Qt::Key_A, Qt::ControlModifier);  // select all: the first key replaces it
  QTest::keyClicks(line, text);
}

void expect_relative(double got, double want, double tolerance, const std::string& what) {
  EXPECT_LE(std::abs(got - want), tolerance * std::abs(want))
      << what << ": " << got << " vs " << want;
}

// The analytic curves `scaleout sweep` writes for `plan_path`, read back from its CSV.
Curves cli_sweep(const std::string& plan_path, const fs::path& csv) {
  fs::create_directories(csv.parent_path());
  auto o = cli("sweep " + plan_path +
               " --engine analytic --workers 8:1024:x2 "
               "--strategies ps,ring,torus2d,hierarchical_ring -q -o " +
               csv.string());
  EXPECT_EQ(o.code, 0) << o.text;
  return read_sweep_csv(csv.string());
}

// The CSV prints 9 significant digits: equal within 1e-8.
void expect_chart_equals_csv(MainWindow& w, const Curves& csv) {
  auto points = throughput_points(w);
  std::size_t n = 0;
  for (const auto& c : csv.curves)
    for (const auto& r : c.points) {
      auto it = points.find({c.strategy, r.workers});
      ASSERT_NE(it, points.end()) << c.strategy << " " << r.workers;
      expect_relative(it->second, r.throughput_samples_per_s, 1e-8, c.strategy);
      ++n;
    }
  EXPECT_EQ(n, points.size());
}

TEST(GuiWindow, ChartSeriesEqualTheAnalyticModel) {
  MainWindow w(quickstart());
  core::Plan plan = quickstart();
  auto throughput = series_of(w.throughput_chart(), true);
  auto efficiency = series_of(w.efficiency_chart(), true);
  ASSERT_EQ(throughput.size(), 4);
  ASSERT_EQ(efficiency.size(), 4);
  int checked = 0;
  for (int i = 0; i < throughput.size(); ++i) {
    auto kind = core::parse_strategy_kind(throughput[i]->name().toStdString());
    ASSERT_TRUE(kind.has_value());
    EXPECT_EQ(throughput[i]->count(), 8);  // 8 .. 1024
    for (int k = 0; k < throughput[i]->count(); ++k) {
      core::Plan p = plan;
      p.strategy.kind = *kind;
      p.training.workers = static_cast<int>(throughput[i]->at(k).x());
      core::RunResult r = sim::predict_analytic(p);
      expect_relative(throughput[i]->at(k).y(), r.throughput_samples_per_s, 1e-9, "throughput");
      expect_relative(efficiency[i]->at(k).y() / 100, r.scaling_efficiency, 1e-9, "efficiency");
      ++checked;
    }
  }
  EXPECT_EQ(checked, 32);
  expect_chart_equals_csv(w, cli_sweep(kQuickstart, kShots / "quickstart-sweep.csv"));
}

TEST(GuiWindow, TypedEditActsAsTheSameYamlEdit) {
  MainWindow w(quickstart());
  auto before = throughput_points(w);
  type_into(w.plan_panel()->editor("nic.bandwidth"), "25Gbps");
  EXPECT_TRUE(w.plan_panel()->error("nic.bandwidth").isEmpty())
      << w.plan_panel()->error("nic.bandwidth").toStdString();
  EXPECT_NE(throughput_points(w), before);

  // The same edit in YAML: the bundled topology with a 25 Gb/s NIC.
  fs::path dir = fs::temp_directory_path() / "scaleout-gui-edit";
  fs::create_directories(dir);
  std::ifstream in(source_path("topologies/v100-ib-switch.yaml"));
  std::string topo((std::istreambuf_iterator<char>(in)), {});
  topo.replace(topo.find("bandwidth: 100Gbps"), 18, "bandwidth: 25Gbps");
  std::ofstream(dir / "topology.yaml") << topo;
  std::ifstream pin(kQuickstart);
  std::string plan_text((std::istreambuf_iterator<char>(pin)), {});
  plan_text.replace(plan_text.find("../topologies/v100-ib-switch.yaml"), 33, "topology.yaml");
  plan_text.replace(plan_text.find("../models/resnet50.yaml"), 23,
                    source_path("models/resnet50.yaml"));
  std::ofstream(dir / "plan.yaml") << plan_text;

  Curves yaml =
      compute_curves(core::load_plan((dir / "plan.yaml").string()), doubling_sizes(8, 1024));
  auto points = throughput_points(w);
  for (const auto& c : yaml.curves)
    for (const auto& r : c.points)
      expect_relative(points[{c.strategy, r.workers}], r.throughput_samples_per_s, 1e-12,
                      c.strategy);
  expect_chart_equals_csv(w, cli_sweep((dir / "plan.yaml").string(), dir / "sweep.csv"));
  fs::remove_all(dir);
}

struct FieldEdit {
  const char* key;
  const char* typed;
  const char* file;  // plan | topology | model
  const char* before;
  const char* after;
};

// The quickstart with its topology and model copied beside it, `edit` applied to one of them.
std::string edited_quickstart(const fs::path& dir, const FieldEdit* edit) {
  auto read = [](const std::string& path) {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), {});
  };
  std::map<std::string, std::string> text = {
      {"plan", read(kQuickstart)},
      {"topology", read(source_path("topologies/v100-ib-switch.yaml"))},
      {"model", read(source_path("models/resnet50.yaml"))}};
  std::string& plan = text["plan"];
  plan.replace(plan.find("../topologies/v100-ib-switch.yaml"), 33, "topology.yaml");
  plan.replace(plan.find("../models/resnet50.yaml"), 23, "model.yaml");
  if (edit) {
    std::string& t = text[edit->file];
    std::size_t at = t.find(edit->before);
    EXPECT_NE(at, std::string::npos) << edit->before;
    if (at != std::string::npos) t.replace(at, std::strlen(edit->before), edit->after);
  }
  for (const auto& [name, content] : text) std::ofstream(dir / (name + ".yaml")) << content;
  return (dir / "plan.yaml").string();
}

TEST(GuiWindow, EveryFieldEditActsAsTheSameYamlEdit) {
  const FieldEdit edits[] = {
      {"training.batch_per_worker", "128", "plan", "batch_per_worker: 64", "batch_per_worker: 128"},
      {"training.fusion_buffer", "16MiB", "plan", "fusion_buffer: 64MiB", "fusion_buffer: 16MiB"},
      {"strategy.servers", "2", "plan", "servers: 8", "servers: 2"},
      {"nic.latency", "20us", "topology", "latency: 2us", "latency: 20us"},
      {"device.flops", "250TFLOPS", "topology", "flops: 125TFLOPS", "flops: 250TFLOPS"},
      {"intra_node.bandwidth", "50GB/s", "topology", "bandwidth: 150GB/s", "bandwidth: 50GB/s"},
      {"cluster.devices_per_node", "4", "topology", "devices_per_node: 8", "devices_per_node: 4"},
      {"workload.efficiency", "0.6", "model", "efficiency: 0.3", "efficiency: 0.6"},
  };
  fs::path dir = fs::temp_directory_path() / "scaleout-gui-fields";
  fs::create_directories(dir);
  for (const auto& e : edits) {
    SCOPED_TRACE(e.key);
    MainWindow w(core::load_plan(edited_quickstart(dir, nullptr)));
    auto before = throughput_points(w);
    type_into(w.plan_panel()->editor(e.key), e.typed);
    EXPECT_TRUE(w.plan_panel()->error(e.key).isEmpty())
        << w.plan_panel()->error(e.key).toStdString();
    EXPECT_NE(throughput_points(w), before);
    Curves yaml = compute_curves(core::load_plan(edited_quickstart(dir, &e)), w.curves().workers);
    auto points = throughput_points(w);
    std::size_t n = 0;
    for (const auto& c : yaml.curves)
      for (const auto& r : c.points) {
        expect_relative(points[{c.strategy, r.workers}], r.throughput_samples_per_s, 1e-12,
                        c.strategy);
        ++n;
      }
    EXPECT_EQ(n, points.size());
  }
  // A choice is a field too: the parameter servers' mode.
  MainWindow w(quickstart());
  auto* mode = dynamic_cast<QComboBox*>(w.plan_panel()->editor("strategy.mode"));
  ASSERT_NE(mode, nullptr);
  double sync = find_point(w.curves(), "ps", 64)->throughput_samples_per_s;
  mode->setCurrentText("async");
  emit mode->textActivated("async");
  EXPECT_EQ(find_point(w.curves(), "ps", 64)->staleness.mean, 63);  // N-1 for asynchronous PS
  EXPECT_NE(find_point(w.curves(), "ps", 64)->throughput_samples_per_s, sync);
  fs::remove_all(dir);
}

TEST(GuiWindow, WrongValueIsMarkedAndKeepsTheLastGoodCurves) {
  MainWindow w(quickstart());
  auto good = throughput_points(w);
  QWidget* nic = w.plan_panel()->editor("nic.bandwidth");
  type_into(nic, "10Gbq");
  QString message = w.plan_panel()->error("nic.bandwidth");
  EXPECT_TRUE(message.contains(
      "field 'nic.bandwidth': '10Gbq' is not a bandwidth such as 100Gbps or 25GB/s"))
      << message.toStdString();
  EXPECT_EQ(nic->toolTip(), message);
  EXPECT_TRUE(nic->styleSheet().contains("background"));
  EXPECT_EQ(throughput_points(w), good);

  // One key: every keystroke is an edit, and a prefix such as "1" of "1.5" would be a good value.
  type_into(w.plan_panel()->editor("workload.efficiency"), "2");
  EXPECT_TRUE(w.plan_panel()->error("workload.efficiency").contains("must be between"));
  EXPECT_EQ(throughput_points(w), good);

  type_into(w.plan_panel()->editor("training.fusion_buffer"), "1");  // 1 byte: refused
  EXPECT_TRUE(w.plan_panel()->error("training.fusion_buffer").contains("at least 64KiB"));
  EXPECT_EQ(throughput_points(w), good);

  type_into(nic, "100Gbps");  // the original value again
  EXPECT_TRUE(w.plan_panel()->error("nic.bandwidth").isEmpty());
  EXPECT_TRUE(nic->styleSheet().isEmpty());
  EXPECT_EQ(throughput_points(w), good);
}

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
  EXPECT_EQ(panel->answer()->message.rfind("not reachable below 2048 workers", 0), 0u);
}

// A "measured" run: the analytic result of ring on 16 workers, 20% slower, as a cpu run.
void write_runs(const fs::path& predicted, const fs::path& measured) {
  auto o = cli("simulate " + kQuickstart + " --engine analytic --workers 16 --strategy ring -o " +
               predicted.string() + " --json");
  ASSERT_EQ(o.code, 0) << o.text;
  auto j = nlohmann::json::parse(std::ifstream(predicted));
  j["engine"] = "cpu";
  j["throughput_samples_per_s"] = j["throughput_samples_per_s"].get<double>() * 0.8;
  j["step_time_s"] = j["step_time_s"].get<double>() / 0.8;
  std::ofstream(measured) << j.dump(2);
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

int simulated_points(const MainWindow& w) {
  int n = 0;
  for (const auto& c : w.curves().curves)
    for (const auto& p : c.points) n += p.engine == "sim";
  return n;
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

TEST(GuiWindow, HoverShowsTheExactValues) {
  MainWindow w(quickstart());
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  auto* view = dynamic_cast<QChartView*>(w.throughput_chart()->widget());
  QXYSeries* ps = nullptr;  // the parameter server's curve lies apart from the others
  for (QXYSeries* s : series_of(w.throughput_chart(), true))
    if (s->name() == "ps") ps = s;
  ASSERT_NE(ps, nullptr);
  QPointF at64 = ps->at(3);  // 8, 16, 32, 64
  ASSERT_EQ(at64.x(), 64);
  QPoint pixel = view->mapFromScene(view->chart()->mapToPosition(at64, ps));
  QTest::mouseMove(view->viewport(), pixel + QPoint(0, 1));
  ASSERT_TRUE(QTest::qWaitFor([] { return QToolTip::isVisible(); }, 3000));
  QString tip = QToolTip::text();
  EXPECT_TRUE(tip.startsWith("ps, 64 workers\n")) << tip.toStdString();
  EXPECT_TRUE(tip.contains(QString("throughput %1 samples/s").arg(at64.y(), 0, 'f', 1)))
      << tip.toStdString();
}

TEST(GuiWindow, EveryBundledPlanOpensWithCurves) {
  MainWindow w(quickstart());
  int opened = 0;
  for (const auto& entry : fs::recursive_directory_iterator(source_path("experiments"))) {
    if (entry.path().extension() != ".yaml") continue;
    SCOPED_TRACE(entry.path().string());
    QString status = w.open_plan(QString::fromStdString(entry.path().string()));
    EXPECT_TRUE(status.startsWith("opened")) << status.toStdString();
    std::size_t points = 0;
    for (const auto& c : w.curves().curves) points += c.points.size();
    EXPECT_GE(points, 4u);  // a fixed-size cluster gets the sizes it holds
    ++opened;
  }
  EXPECT_GE(opened, 5);
  EXPECT_FALSE(w.open_plan("/nonexistent/plan.yaml").startsWith("opened"));
}

TEST(GuiWindow, EveryBundledTopologyAndModelCanBePicked) {
  MainWindow w(quickstart());
  for (const char* key : {"cluster", "workload"}) {
    auto* combo = dynamic_cast<QComboBox*>(w.plan_panel()->editor(key));
    ASSERT_NE(combo, nullptr);
    EXPECT_EQ(combo->currentText(), std::string(key) == "cluster" ? "v100-ib-switch" : "resnet50");
    int picked = 0;
    for (int i = 0; i < combo->count(); ++i) {
      SCOPED_TRACE(combo->itemText(i).toStdString());
      combo->setCurrentIndex(i);
      emit combo->activated(i);  // as a user's choice
      EXPECT_TRUE(w.plan_panel()->error(key).isEmpty()) << w.plan_panel()->error(key).toStdString();
      std::size_t points = 0;
      for (const auto& c : w.curves().curves) points += c.points.size();
      EXPECT_GE(points, 3u);
      ++picked;
    }
    EXPECT_GE(picked, std::string(key) == "cluster" ? 7 : 6);
  }
  // The last picks are in the plan the window computes with.
  EXPECT_EQ(w.plan_panel()->what_if().plan.cluster.name, "v100-ib-switch");
  EXPECT_EQ(w.plan_panel()->what_if().plan.workload.name, "vgg16");
}

TEST(PlanWriter, SavedPlansLoadToTheSamePlan) {
  fs::path dir = fs::temp_directory_path() / "scaleout-gui-save";
  fs::create_directories(dir);
  // Every knob the writer knows, on top of the quickstart: async PS, stragglers, failures.
  std::ifstream in(kQuickstart);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  text.replace(text.find("../topologies"), 13, source_path("topologies"));
  text.replace(text.find("../models"), 9, source_path("models"));
  text.replace(text.find("placement: dedicated"), 20, "placement: dedicated\n  mode: async");
  text +=
      "stragglers:\n  slow: { workers: [1, 3], factor: 2.5 }\n"
      "  random: { distribution: lognormal, sigma: 0.3, seed: 9 }\n"
      "failures:\n  - { node: 1, step: 1 }\n  - { node: 2, time: 1.5s }\n"
      "checkpoint: { every: 1, cost: 2s, restart: 30s }\n";
  std::ofstream(dir / "knobs.yaml") << text;
  std::vector<std::string> plans = {(dir / "knobs.yaml").string()};
  for (const auto& e : fs::recursive_directory_iterator(source_path("experiments")))
    if (e.path().extension() == ".yaml") plans.push_back(e.path().string());
  for (const auto& path : plans) {
    SCOPED_TRACE(path);
    core::Plan original = core::load_plan(path);
    fs::path saved = dir / "saved.yaml";
    save_plan(original, saved.string());
    core::Plan again = core::load_plan(saved.string());
    EXPECT_EQ(plan_to_yaml(again), plan_to_yaml(original));
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
    EXPECT_EQ(nlohmann::json::parse(a.text)["step_time_s"],
              nlohmann::json::parse(b.text)["step_time_s"]);
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
}

}  // namespace
}  // namespace scaleout::gui

int main(int argc, char** argv) {
  // Headless always, also when ctest lists the tests without the test's environment.
  if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  ::testing::InitGoogleTest(&argc, argv);
  QApplication app(argc, argv);
  return RUN_ALL_TESTS();
}

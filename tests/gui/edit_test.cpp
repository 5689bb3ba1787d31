// The window's charts and fields, headless (QT_QPA_PLATFORM=offscreen): the series hold the
// analytic engine's numbers, keys typed into a field act as the same YAML edit, a wrong value
// keeps the last good curves, hovering shows exact values, bundled data opens.
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
#include <nlohmann/json.hpp>

#include "analytic/analytic.hpp"
#include "core/plan/plan_loader.hpp"
#include "core/plan/plan_writer.hpp"
#include "explore/planner.hpp"
#include "gui/answer_panel.hpp"
#include "gui/curves.hpp"
#include "gui/main_window.hpp"
#include "gui/plan_panel.hpp"
#include "gui/refine_bar.hpp"
#include "gui/sweep_csv.hpp"
#include "tests/gui/gui_support.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::gui {
namespace {

namespace fs = std::filesystem;
using testing::source_path;

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
    MainWindow w(core::load_plan(edited_quickstart(dir, {})));
    auto before = throughput_points(w);
    type_into(w.plan_panel()->editor(e.key), e.typed);
    EXPECT_TRUE(w.plan_panel()->error(e.key).isEmpty())
        << w.plan_panel()->error(e.key).toStdString();
    EXPECT_NE(throughput_points(w), before);
    Curves yaml = compute_curves(
        core::load_plan(edited_quickstart(dir, {{e.file, e.before, e.after}})), w.curves().workers);
    expect_chart_equals_curves(w, yaml, 1e-12);
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
  for (const auto& path : testing::bundled_plans()) {
    SCOPED_TRACE(path);
    QString status = w.open_plan(QString::fromStdString(path));
    EXPECT_TRUE(status.startsWith("opened")) << status.toStdString();
    std::size_t points = 0;
    for (const auto& c : w.curves().curves) points += c.points.size();
    // A fixed-size cluster gets the sizes it holds; a fixed global batch (MPT-30B's 504
    // sequences in micro-batches of 3) the sizes it divides into: 3 at least.
    EXPECT_GE(points, 3u);
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

}  // namespace
}  // namespace scaleout::gui

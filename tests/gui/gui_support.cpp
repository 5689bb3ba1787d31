#include "tests/gui/gui_support.hpp"

#include <gtest/gtest.h>

#include <QChart>
#include <QChartView>
#include <QGraphicsTextItem>
#include <QLineEdit>
#include <QLineSeries>
#include <QScatterSeries>
#include <QTest>
#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/plan/plan_loader.hpp"
#include "gui/sweep_csv.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::gui {

namespace fs = std::filesystem;

const std::string kQuickstart = testing::source_path("experiments/quickstart.yaml");
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

Curves cli_sweep(const std::string& plan_path, const fs::path& csv) {
  fs::create_directories(csv.parent_path());
  auto o = cli("sweep " + plan_path +
               " --engine analytic --workers 8:1024:x2 "
               "--strategies ps,ring,torus2d,hierarchical_ring -q -o " +
               csv.string());
  EXPECT_EQ(o.code, 0) << o.text;
  return read_sweep_csv(csv.string());
}

std::size_t expect_chart_equals_curves(MainWindow& w, const Curves& curves, double tolerance) {
  auto points = throughput_points(w);
  std::size_t n = 0;
  for (const auto& c : curves.curves)
    for (const auto& r : c.points) {
      auto it = points.find({c.strategy, r.workers});
      EXPECT_NE(it, points.end()) << c.strategy << " " << r.workers;
      if (it == points.end()) continue;
      expect_relative(it->second, r.throughput_samples_per_s, tolerance, c.strategy);
      ++n;
    }
  EXPECT_EQ(n, points.size());
  return n;
}

// The CSV has 9 significant digits.
void expect_chart_equals_csv(MainWindow& w, const Curves& csv) {
  expect_chart_equals_curves(w, csv, 1e-8);
}

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

int simulated_points(const MainWindow& w) {
  int n = 0;
  for (const auto& c : w.curves().curves)
    for (const auto& p : c.points) n += p.engine == "sim";
  return n;
}

std::string edited_quickstart(const fs::path& dir, const std::vector<YamlReplace>& edits) {
  auto read = [](const std::string& path) {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), {});
  };
  std::map<std::string, std::string> text = {
      {"plan", read(kQuickstart)},
      {"topology", read(testing::source_path("topologies/v100-ib-switch.yaml"))},
      {"model", read(testing::source_path("models/resnet50.yaml"))}};
  std::string& plan = text["plan"];
  plan.replace(plan.find("../topologies/v100-ib-switch.yaml"), 33, "topology.yaml");
  plan.replace(plan.find("../models/resnet50.yaml"), 23, "model.yaml");
  for (const auto& e : edits) {
    std::string& t = text[e.file];
    std::size_t at = t.find(e.before);
    EXPECT_NE(at, std::string::npos) << e.before;
    if (at != std::string::npos) t.replace(at, std::strlen(e.before), e.after);
  }
  fs::create_directories(dir);
  for (const auto& [name, content] : text) std::ofstream(dir / (name + ".yaml")) << content;
  return (dir / "plan.yaml").string();
}

QStringList cut_labels(MainWindow& w) {
  QStringList cut;
  for (QChartView* view : w.findChildren<QChartView*>()) {
    if (!view->isVisible()) continue;
    for (QGraphicsItem* item : view->scene()->items()) {
      auto* text = dynamic_cast<QGraphicsTextItem*>(item);
      if (!text || !text->isVisible()) continue;
      QString s = text->toPlainText();
      if (s.contains("...") || s.contains(QChar(0x2026)))
        cut << view->chart()->title().left(40) + ": " + s;
    }
  }
  return cut;
}

}  // namespace scaleout::gui

// The built-in timeline: a simulated run's trace read back span for span, many ranks folded into
// rows that average them, zoom and pan keep their promise, and "Open in Perfetto" writes the
// trace as it was.
#include <gtest/gtest.h>

#include <QApplication>
#include <QLabel>
#include <QMouseEvent>
#include <QTest>
#include <QWheelEvent>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/formats/trace.hpp"
#include "gui/main_window.hpp"
#include "gui/timeline_data.hpp"
#include "gui/timeline_view.hpp"
#include "gui/timeline_window.hpp"
#include "sim/simulator.hpp"
#include "tests/gui/gui_support.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::gui {
namespace {

namespace fs = std::filesystem;

fs::path simulated_trace() {
  fs::create_directories(kShots);
  fs::path path = kShots / "timeline-ring-4.json";
  core::Plan plan = testing::collective_plan(testing::switch_cluster(1, 1.25e9, 5e-6),
                                             core::StrategyKind::kRing, 4, 1e7);
  plan.workload.flops_per_sample = 1e12;
  plan.training.steps = 3;
  sim::simulate(plan, {sim::Fidelity::kFast, path.string()});
  return path;
}

TEST(GuiTimeline, ASimulatedTraceIsReadSpanForSpan) {
  fs::path path = simulated_trace();
  auto json = nlohmann::json::parse(std::ifstream(path));
  std::map<int, int> spans_per_tid;
  std::map<int, double> compute_per_tid;
  double first = 1e300, last = -1e300;
  for (const auto& e : json["traceEvents"]) {
    if (e["ph"] != "X") continue;
    int tid = e["tid"];
    spans_per_tid[tid] += 1;
    double ts = e["ts"].get<double>() * 1e-6, dur = e["dur"].get<double>() * 1e-6;
    if (e["cat"] == "compute") compute_per_tid[tid] += dur;
    first = std::min(first, ts);
    last = std::max(last, ts + dur);
  }
  TimelineTrace t = read_chrome_trace_file(path.string());
  ASSERT_EQ(t.tracks.size(), spans_per_tid.size());
  EXPECT_NEAR(t.start, first, 1e-12);
  EXPECT_NEAR(t.end, last, 1e-12);
  int k = 0;
  for (const auto& [tid, count] : spans_per_tid) {
    const TimelineTrack& track = t.tracks[k];
    EXPECT_EQ(static_cast<int>(track.spans.size()), count) << track.name;
    // The whole run as one column: the compute lanes hold the compute time.
    RowBins bins;
    bin_row(t, {track.name, k, k}, t.start, t.end, 1, bins);
    EXPECT_NEAR((bins.forward[0] + bins.compute[0]) * (t.end - t.start), compute_per_tid[tid],
                1e-6 * (t.end - t.start))
        << track.name;
    ++k;
  }
  EXPECT_EQ(t.tracks[0].name, "worker 0");
}

// `ranks` ranks, `steps` steps: even ranks compute [0, 1) of each 2 s step, odd ranks are idle
// then and exchange [1, 2).
TimelineTrace alternating(int ranks, int steps) {
  core::Trace trace;
  for (int r = 0; r < ranks; ++r) {
    int track = trace.add_track("rank " + std::to_string(r));
    for (int s = 0; s < steps; ++s) {
      if (r % 2 == 0)
        trace.span(track, "backward", "compute", 2.0 * s, 1.0);
      else
        trace.span(track, "exchange bucket 0", "comm", 2.0 * s + 1, 1.0);
    }
  }
  return read_chrome_trace(trace.to_json("synthetic"));
}

TEST(GuiTimeline, ManyRanksFoldIntoRowsThatAverageThem) {
  TimelineTrace t = alternating(1024, 4);
  auto rows = timeline_rows(t, 64);
  EXPECT_EQ(rows.size(), 64u) << "16 ranks a row";
  int next = 0;
  for (const auto& row : rows) {
    EXPECT_EQ(row.first, next) << "rows cover the ranks in order, each once";
    next = row.last + 1;
  }
  EXPECT_EQ(next, 1024);
  // 8 s in 8 columns: half the row's ranks compute in even seconds, half exchange in odd ones.
  RowBins bins;
  bin_row(t, rows[0], 0, 8, 8, bins);
  int per_row = rows[0].last - rows[0].first + 1;
  ASSERT_EQ(per_row % 2, 0) << "rows of an even count average to exactly one half";
  for (int i = 0; i < 8; ++i) {
    EXPECT_FLOAT_EQ(bins.compute[i], i % 2 == 0 ? 0.5f : 0.0f) << i;
    EXPECT_FLOAT_EQ(bins.comm[i], i % 2 == 1 ? 0.5f : 0.0f) << i;
    EXPECT_FLOAT_EQ(bins.forward[i], 0.0f);
  }
  // Half a column at the edges: [0.5, 1.5) in one column is half compute, half exchange.
  bin_row(t, {"rank 0", 0, 0}, 0.5, 1.5, 1, bins);
  EXPECT_FLOAT_EQ(bins.compute[0], 0.5f);
}

void mouse(QWidget* w, QEvent::Type type, QPoint at, Qt::MouseButtons buttons) {
  QMouseEvent e(type, at, w->mapToGlobal(at), Qt::LeftButton, buttons, Qt::NoModifier);
  QApplication::sendEvent(w, &e);
}

TEST(GuiTimeline, WindowZoomsPansAndWritesTheTraceForPerfetto) {
  fs::path path = simulated_trace();
  MainWindow w(quickstart());
  QString said = w.open_trace(QString::fromStdString(path.string()));
  ASSERT_TRUE(said.startsWith("timeline of ")) << said.toStdString();
  TimelineWindow* tw = w.timeline();
  TimelineView* view = tw->view();
  tw->resize(1200, 600);
  const TimelineTrace& t = view->trace();
  EXPECT_EQ(view->rows().size(), t.tracks.size()) << "a few ranks: a row each";
  EXPECT_DOUBLE_EQ(view->window_start(), t.start);
  EXPECT_DOUBLE_EQ(view->window_end(), t.end);

  // Zoom in around the middle of the plot: the time under the cursor stays put.
  QPoint middle(view->width() / 2, view->height() / 2);
  QWheelEvent wheel(middle, view->mapToGlobal(middle), {}, {0, 120}, Qt::NoButton, Qt::NoModifier,
                    Qt::NoScrollPhase, false);
  QApplication::sendEvent(view, &wheel);
  double width = view->window_end() - view->window_start();
  EXPECT_LT(width, t.end - t.start);
  EXPECT_GT(view->window_start(), t.start);
  EXPECT_LT(view->window_end(), t.end);
  // Drag right by 100 pixels: the window moves earlier by 100 pixels' worth of time.
  double start = view->window_start();
  mouse(view, QEvent::MouseButtonPress, middle, Qt::LeftButton);
  mouse(view, QEvent::MouseMove, middle + QPoint(100, 0), Qt::LeftButton);
  mouse(view, QEvent::MouseButtonRelease, middle + QPoint(100, 0), Qt::NoButton);
  EXPECT_LT(view->window_start(), start);
  EXPECT_NEAR(view->window_end() - view->window_start(), width, width * 1e-9)
      << "panning keeps the zoom";
  view->show_all();
  QString tip = view->tip_at(QPoint(view->width() / 2, 24 + 5));
  EXPECT_TRUE(tip.startsWith(QString::fromStdString(t.tracks[0].name))) << tip.toStdString();

  fs::create_directories(kShots);
  ASSERT_TRUE(
      tw->grab().toImage().save(QString::fromStdString((kShots / "timeline.png").string()), "PNG"));
  fs::path out = kShots / "perfetto";
  fs::remove_all(out);
  QString message = tw->open_in_perfetto(QString::fromStdString(out.string()));
  fs::path written = out / "timeline-ring-4.json";
  EXPECT_TRUE(message.contains(QString::fromStdString(written.string()))) << message.toStdString();
  std::ifstream a(path), b(written);
  std::string ta((std::istreambuf_iterator<char>(a)), {}),
      tb((std::istreambuf_iterator<char>(b)), {});
  EXPECT_EQ(ta, tb);
  EXPECT_EQ(tw->message()->text(), message);
}

TEST(GuiTimeline, ThousandRanksShowAsFoldedRows) {
  TimelineView view;
  view.set_trace(alternating(1024, 10));
  view.resize(1200, 700);
  EXPECT_LT(view.rows().size(), 60u);
  QString tip = view.tip_at(QPoint(400, 100));
  EXPECT_TRUE(tip.contains("busy:")) << tip.toStdString();
  fs::create_directories(kShots);
  ASSERT_TRUE(view.grab().toImage().save(
      QString::fromStdString((kShots / "timeline-1024.png").string()), "PNG"));
}

}  // namespace
}  // namespace scaleout::gui

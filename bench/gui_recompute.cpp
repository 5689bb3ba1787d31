// The window's speed, offscreen: start to first curves, and one edit's analytic recompute and
// redraw (ps, ring, torus2d, hierarchical_ring at 8..4096 workers, x2), median of many edits;
// then the same for an edit of a model-parallel plan's pipeline stages (its split search kept) and
// of its NIC (searched again).
//
//   build/bench/bench_gui_recompute [edits]
#include <QApplication>
#include <QLineEdit>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/plan/plan_loader.hpp"
#include "gui/main_window.hpp"
#include "gui/plan_panel.hpp"

using namespace scaleout;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

struct EditTimes {
  double median_ms = 0, max_ms = 0;
  std::size_t points = 0;  // the curves' points after the last edit
};

// `edits` edits of the field `key`, alternating between two values, each as a keystroke would
// make it, then the repaint it causes.
EditTimes time_edits(gui::MainWindow& window, const char* key, const char* a, const char* b,
                     int edits) {
  auto* editor = static_cast<QLineEdit*>(window.plan_panel()->editor(key));
  std::vector<double> times;
  for (int i = 0; i < edits; ++i) {
    auto t = Clock::now();
    emit editor->textEdited(i % 2 ? a : b);
    window.grab();
    times.push_back(ms_since(t));
  }
  std::sort(times.begin(), times.end());
  EditTimes out{times[times.size() / 2], times.back(), 0};
  for (const auto& c : window.curves().curves) out.points += c.points.size();
  return out;
}

int main(int argc, char** argv) {
  int edits = argc > 1 ? std::atoi(argv[1]) : 40;
  if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  auto t0 = Clock::now();
  core::Plan plan =
      core::load_plan(std::string(SCALEOUT_SOURCE_DIR) + "/experiments/quickstart.yaml");
  gui::MainWindow window(plan);
  window.show();
  QApplication::processEvents();
  window.grab();  // painted once
  std::printf("start to first curves (plan loaded, window shown and painted): %.1f ms\n",
              ms_since(t0));

  auto* max = static_cast<QLineEdit*>(window.plan_panel()->editor("sweep.max_workers"));
  for (const char* largest : {"1024", "4096"}) {
    emit max->textEdited(largest);
    EditTimes t = time_edits(window, "nic.bandwidth", "100Gbps", "25Gbps", edits);
    std::printf(
        "edit -> recompute %zu analytic points (8..%s workers) and the planning answer -> redraw "
        "and repaint: median %.1f ms, max %.1f ms over %d edits (target < 50 ms)\n",
        t.points, largest, t.median_ms, t.max_ms, edits);
  }
  // A model-parallel plan (GPT-3 175B on up to 1,024 A100s): each point a pipeline schedule timed
  // in closed form, and the memory bars.
  window.open_plan(QString(SCALEOUT_SOURCE_DIR) + "/experiments/model-parallel/gpt3-175b.yaml");
  EditTimes t = time_edits(window, "parallelism.pipeline", "16", "8", edits);
  std::printf(
      "model-parallel edit (pipeline 8 <-> 16) -> recompute %zu points, memory bars -> redraw: "
      "median %.1f ms, max %.1f ms over %d edits (target < 50 ms)\n",
      t.points, t.median_ms, t.max_ms, edits);
  // The split search behind the best-split curve and the split table is kept across edits of the
  // split; an edit of anything else (here the NIC) searches every size again.
  t = time_edits(window, "nic.bandwidth", "100Gbps", "200Gbps", edits);
  std::printf(
      "model-parallel edit (NIC 200 <-> 100 Gb/s) -> the split search at every size again, "
      "recompute, redraw: median %.1f ms, max %.1f ms over %d edits\n",
      t.median_ms, t.max_ms, edits);
  return 0;
}

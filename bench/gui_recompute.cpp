// The window's speed, offscreen: start to first curves, and one edit's analytic recompute and
// redraw (ps, ring, torus2d, hierarchical_ring at 8..4096 workers, x2), median of many edits.
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

#include "core/plan_loader.hpp"
#include "gui/main_window.hpp"
#include "gui/plan_panel.hpp"

using namespace scaleout;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
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
  emit max->textEdited("4096");
  auto* nic = static_cast<QLineEdit*>(window.plan_panel()->editor("nic.bandwidth"));
  std::vector<double> times;
  for (int i = 0; i < edits; ++i) {
    auto t = Clock::now();
    emit nic->textEdited(i % 2 ? "100Gbps" : "25Gbps");  // what a keystroke does
    window.grab();                                       // and the repaint it causes
    times.push_back(ms_since(t));
  }
  std::sort(times.begin(), times.end());
  std::size_t points = 0;
  for (const auto& c : window.curves().curves) points += c.points.size();
  std::printf(
      "edit -> recompute %zu analytic points -> redraw and repaint: median %.1f ms, "
      "max %.1f ms over %d edits\n",
      points, times[times.size() / 2], times.back(), edits);
  return 0;
}

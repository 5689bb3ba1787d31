// The window's speed, offscreen: start to first curves, and one edit's analytic recompute and
// redraw (ps, ring, torus2d, hierarchical_ring at 8..4096 workers, x2), median of many edits;
// then the same for an edit of a model-parallel plan's pipeline stages.
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

// A model-parallel plan (GPT-3 175B on up to 1,024 A100s): one edit of the pipeline stages
// recomputes the curves (each point a pipeline schedule timed in closed form), the memory bars
// and the redraw.
void split_edits(gui::MainWindow& window, int edits) {
  window.open_plan(QString(SCALEOUT_SOURCE_DIR) + "/experiments/model-parallel/gpt3-175b.yaml");
  auto* stages = static_cast<QLineEdit*>(window.plan_panel()->editor("parallelism.pipeline"));
  std::vector<double> times;
  for (int i = 0; i < edits; ++i) {
    auto t = Clock::now();
    emit stages->textEdited(i % 2 ? "16" : "8");
    window.grab();
    times.push_back(ms_since(t));
  }
  std::sort(times.begin(), times.end());
  std::size_t points = 0;
  for (const auto& c : window.curves().curves) points += c.points.size();
  std::printf(
      "model-parallel edit (pipeline 8 <-> 16) -> recompute %zu points, memory bars -> redraw: "
      "median %.1f ms, max %.1f ms over %d edits (target < 50 ms)\n",
      points, times[times.size() / 2], times.back(), edits);
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
  auto* nic = static_cast<QLineEdit*>(window.plan_panel()->editor("nic.bandwidth"));
  for (const char* largest : {"1024", "4096"}) {
    emit max->textEdited(largest);
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
        "edit -> recompute %zu analytic points (8..%s workers) and the planning answer -> redraw "
        "and repaint: median %.1f ms, max %.1f ms over %d edits (target < 50 ms)\n",
        points, largest, times[times.size() / 2], times.back(), edits);
  }
  split_edits(window, edits);
  return 0;
}

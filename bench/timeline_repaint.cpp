// The built-in timeline's repaint time, offscreen, on a 1024-rank trace of 10 steps (the issue's
// target: under 100 ms a repaint): the whole run, one step, a thin slice, and panning across.
// The trace is made with core::Trace like an engine's (forward, backward, 8 exchange buckets per
// step overlapping backward, every rank a little out of step), or read from a file.
//
//   build/bench/bench_timeline_repaint [trace.json] [repaints]
#include <QApplication>
#include <QImage>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/formats/trace.hpp"
#include "gui/timeline_data.hpp"
#include "gui/timeline_view.hpp"

using namespace scaleout;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

std::string synthetic_trace(int ranks, int steps) {
  core::Trace trace;
  const double forward = 0.030, backward = 0.060, bucket = 0.012, step = 0.110;
  for (int r = 0; r < ranks; ++r) {
    int track = trace.add_track("rank " + std::to_string(r));
    double skew = 0.002 * ((r * 7919) % 13) / 13.0;
    for (int s = 0; s < steps; ++s) {
      double t = s * step + skew;
      trace.span(track, "forward", "compute", t, forward);
      trace.span(track, "backward", "compute", t + forward, backward);
      for (int b = 0; b < 8; ++b)
        trace.span(track, "exchange bucket " + std::to_string(b), "comm",
                   t + forward + backward * (b + 1) / 8.0, bucket);
    }
  }
  return trace.to_json("synthetic 1024 ranks, 10 steps");
}

struct Figures {
  double median = 0, worst = 0;
};

// Repaints `view` into an image `repaints` times over the windows `windows` cycles through.
Figures repaint(gui::TimelineView& view, const std::vector<std::pair<double, double>>& windows,
                int repaints) {
  QImage image(view.size(), QImage::Format_ARGB32_Premultiplied);
  std::vector<double> ms;
  for (int i = 0; i < repaints; ++i) {
    const auto& [t0, t1] = windows[i % windows.size()];
    view.set_window(t0, t1);
    auto start = Clock::now();
    view.render(&image);
    ms.push_back(ms_since(start));
  }
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms.back()};
}

}  // namespace

int main(int argc, char** argv) {
  int repaints = argc > 2 ? std::atoi(argv[2]) : 30;
  if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  auto t0 = Clock::now();
  gui::TimelineTrace trace = argc > 1 ? gui::read_chrome_trace_file(argv[1])
                                      : gui::read_chrome_trace(synthetic_trace(1024, 10));
  double read_ms = ms_since(t0);
  std::size_t spans = 0;
  for (const auto& t : trace.tracks) spans += t.spans.size();
  gui::TimelineView view;
  view.resize(1600, 900);
  view.set_trace(trace);
  std::printf("trace: %zu tracks, %zu spans, %.3f s; read in %.0f ms; view 1600x900, %zu rows\n",
              trace.tracks.size(), spans, trace.end - trace.start, read_ms, view.rows().size());
  double a = view.trace().start, b = view.trace().end, length = b - a;
  std::vector<std::pair<double, double>> pans;
  for (int i = 0; i < 20; ++i)
    pans.push_back({a + length * i / 40, a + length * i / 40 + length / 10});
  struct Case {
    const char* name;
    std::vector<std::pair<double, double>> windows;
  } cases[] = {{"whole run", {{a, b}}},
               {"one step", {{a + length * 0.4, a + length * 0.5}}},
               {"a 1 ms slice", {{a + length / 2, a + length / 2 + 1e-3}}},
               {"panning a tenth", pans}};
  std::printf("%-18s %12s %12s\n", "window", "median ms", "worst ms");
  for (const auto& c : cases) {
    Figures f = repaint(view, c.windows, repaints);
    std::printf("%-18s %12.1f %12.1f\n", c.name, f.median, f.worst);
  }
  return 0;
}

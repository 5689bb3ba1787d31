// A Chrome trace (core/formats/trace.hpp's JSON, or any with "X" events) read for the built-in
// timeline, without Qt: one track per thread with its spans sorted, rows that aggregate consecutive
// tracks when there are more than fit, and the busy share of each phase per pixel column of a row.
#pragma once

#include <string>
#include <vector>

namespace scaleout::gui {

// How a span is coloured: forward pass, other compute (backward), the zero-bubble schedule's
// weight passes, anything else (communication).
enum class Phase { kForward, kCompute, kComm, kWeight };

struct TimelineSpan {
  double start = 0, end = 0;  // seconds
  Phase phase = Phase::kComm;
  int name = 0;  // index into TimelineTrace::names
};

struct TimelineTrack {
  std::string name;                 // "rank 3"
  std::vector<TimelineSpan> spans;  // by start
  double longest = 0;               // the longest span's duration (to find spans by time)
};

struct TimelineTrace {
  std::string process;                // what ran ("sim ring 64 workers")
  std::vector<TimelineTrack> tracks;  // those with spans, in the trace's track order
  std::vector<std::string> names;     // span names, each once
  double start = 0, end = 0;          // first span's start, last span's end
};

// Throws std::runtime_error when `json` is not a Chrome trace with spans.
TimelineTrace read_chrome_trace(const std::string& json);
TimelineTrace read_chrome_trace_file(const std::string& path);

struct TimelineRow {
  std::string label;        // the track's name, or "rank 0 .. rank 15 (16)"
  int first = 0, last = 0;  // tracks first..last (inclusive)
};

// One row per track up to `max_rows`; beyond, consecutive tracks share a row.
std::vector<TimelineRow> timeline_rows(const TimelineTrace& trace, int max_rows);

// The share of [t0, t1] split in `bins` columns that each phase kept the row's tracks busy
// (0..1, averaged over the row's tracks).
struct RowBins {
  std::vector<float> forward, compute, comm, weight;
};
void bin_row(const TimelineTrace& trace, const TimelineRow& row, double t0, double t1, int bins,
             RowBins& out);

// The span of `track` that covers time `t`, or nullptr.
const TimelineSpan* span_at(const TimelineTrack& track, double t);

}  // namespace scaleout::gui

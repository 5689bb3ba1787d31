// Chrome trace event format (JSON), readable by Perfetto and chrome://tracing: one process per
// engine run, one track (thread) per rank and per busy link.
#pragma once

#include <string>
#include <vector>

namespace scaleout::core {

struct TraceSpan {
  int track = 0;
  std::string name;      // "forward", "backward", "allreduce bucket 2", ...
  std::string category;  // "compute" | "comm"
  double start_s = 0;
  double duration_s = 0;
};

struct TraceCounter {
  int track = 0;
  std::string name;  // "utilization"
  double time_s = 0;
  double value = 0;
};

class Trace {
 public:
  // Declares a track; returns its id. Tracks appear in the order they were declared.
  int add_track(const std::string& name);
  void span(int track, std::string name, std::string category, double start_s, double duration_s);
  void counter(int track, std::string name, double time_s, double value);
  std::size_t size() const { return spans_.size() + counters_.size(); }

  // The trace as Chrome trace JSON; `process` names the run ("sim ring 64 workers").
  std::string to_json(const std::string& process) const;
  // Writes atomically (see atomic_file.hpp).
  void write(const std::string& path, const std::string& process) const;

 private:
  std::vector<std::string> tracks_;
  std::vector<TraceSpan> spans_;
  std::vector<TraceCounter> counters_;
};

}  // namespace scaleout::core

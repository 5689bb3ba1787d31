#include "core/formats/trace.hpp"

#include <nlohmann/json.hpp>

#include "core/files/atomic_file.hpp"

namespace scaleout::core {

int Trace::add_track(const std::string& name) {
  tracks_.push_back(name);
  return static_cast<int>(tracks_.size()) - 1;
}

void Trace::span(int track, std::string name, std::string category, double start_s,
                 double duration_s) {
  spans_.push_back({track, std::move(name), std::move(category), start_s, duration_s});
}

void Trace::counter(int track, std::string name, double time_s, double value) {
  counters_.push_back({track, std::move(name), time_s, value});
}

std::string Trace::to_json(const std::string& process) const {
  using nlohmann::json;
  json events = json::array();
  events.push_back(
      {{"ph", "M"}, {"pid", 1}, {"name", "process_name"}, {"args", {{"name", process}}}});
  for (std::size_t t = 0; t < tracks_.size(); ++t) {
    events.push_back({{"ph", "M"},
                      {"pid", 1},
                      {"tid", t},
                      {"name", "thread_name"},
                      {"args", {{"name", tracks_[t]}}}});
    events.push_back({{"ph", "M"},
                      {"pid", 1},
                      {"tid", t},
                      {"name", "thread_sort_index"},
                      {"args", {{"sort_index", t}}}});
  }
  // Timestamps are microseconds in this format.
  for (const auto& s : spans_)
    events.push_back({{"ph", "X"},
                      {"pid", 1},
                      {"tid", s.track},
                      {"name", s.name},
                      {"cat", s.category},
                      {"ts", s.start_s * 1e6},
                      {"dur", s.duration_s * 1e6}});
  for (const auto& c : counters_)
    events.push_back({{"ph", "C"},
                      {"pid", 1},
                      {"tid", c.track},
                      {"name", tracks_[c.track]},
                      {"ts", c.time_s * 1e6},
                      {"args", {{c.name, c.value}}}});
  return json{{"traceEvents", events}, {"displayTimeUnit", "ms"}}.dump();
}

void Trace::write(const std::string& path, const std::string& process) const {
  write_file_atomic(path, to_json(process));
}

}  // namespace scaleout::core

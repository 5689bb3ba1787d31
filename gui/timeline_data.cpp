#include "gui/timeline_data.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

namespace scaleout::gui {

namespace {

// Compute spans are "compute" (named "forward" for a forward pass, "weight" for a zero-bubble
// weight pass); a model-parallel program's passes are categorized "forward", "backward" and
// "weight" themselves.
Phase phase_of(const std::string& name, const std::string& category) {
  if (category == "forward") return Phase::kForward;
  if (category == "backward") return Phase::kCompute;
  if (category == "weight") return Phase::kWeight;
  if (category != "compute") return Phase::kComm;
  return name == "forward" ? Phase::kForward : name == "weight" ? Phase::kWeight : Phase::kCompute;
}

// The (pid, tid) pair of an event, as one key.
long long track_key(const nlohmann::json& e) {
  return e.value("pid", 0LL) * 1000000LL + e.value("tid", 0LL);
}

// Adds `weight` per bin of busy time over [a, b) (in bin units) to `bins`.
void spread(std::vector<float>& bins, double a, double b, float weight) {
  int n = static_cast<int>(bins.size());
  a = std::max(a, 0.0);
  b = std::min(b, static_cast<double>(n));
  if (b <= a) return;
  int i = static_cast<int>(a), j = static_cast<int>(b);  // i < n; j == n when b reaches the end
  if (i == j) {
    bins[i] += static_cast<float>(b - a) * weight;
    return;
  }
  bins[i] += static_cast<float>(i + 1 - a) * weight;
  for (int k = i + 1; k < j; ++k) bins[k] += weight;
  if (j < n) bins[j] += static_cast<float>(b - j) * weight;
}

}  // namespace

TimelineTrace read_chrome_trace(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) throw std::runtime_error("not JSON");
  const nlohmann::json& events = j.is_array() ? j : j.value("traceEvents", nlohmann::json());
  if (!events.is_array()) throw std::runtime_error("no traceEvents array: not a Chrome trace");
  TimelineTrace t;
  std::map<long long, std::string> thread_names;
  std::map<long long, std::vector<TimelineSpan>> spans;
  std::unordered_map<std::string, int> name_index;
  for (const auto& e : events) {
    std::string ph = e.value("ph", "");
    if (ph == "M" && e.value("name", "") == "thread_name") {
      thread_names[track_key(e)] = e["args"].value("name", "");
    } else if (ph == "M" && e.value("name", "") == "process_name") {
      t.process = e["args"].value("name", "");
    } else if (ph == "X") {
      std::string name = e.value("name", "");
      auto [it, fresh] = name_index.emplace(name, static_cast<int>(t.names.size()));
      if (fresh) t.names.push_back(name);
      double start = e.value("ts", 0.0) * 1e-6, duration = e.value("dur", 0.0) * 1e-6;
      spans[track_key(e)].push_back(
          {start, start + duration, phase_of(name, e.value("cat", "")), it->second});
    }
  }
  if (spans.empty()) throw std::runtime_error("the trace has no spans (\"X\" events)");
  t.start = 1e300;
  t.end = -1e300;
  for (auto& [key, list] : spans) {
    TimelineTrack track;
    auto name = thread_names.find(key);
    track.name = name != thread_names.end() ? name->second : "thread " + std::to_string(key);
    std::sort(list.begin(), list.end(),
              [](const auto& a, const auto& b) { return a.start < b.start; });
    for (const auto& s : list) {
      track.longest = std::max(track.longest, s.end - s.start);
      t.start = std::min(t.start, s.start);
      t.end = std::max(t.end, s.end);
    }
    track.spans = std::move(list);
    t.tracks.push_back(std::move(track));
  }
  return t;
}

TimelineTrace read_chrome_trace_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  return read_chrome_trace(text.str());
}

std::vector<TimelineRow> timeline_rows(const TimelineTrace& trace, int max_rows) {
  int n = static_cast<int>(trace.tracks.size());
  int per_row = std::max(1, (n + std::max(1, max_rows) - 1) / std::max(1, max_rows));
  std::vector<TimelineRow> rows;
  for (int first = 0; first < n; first += per_row) {
    int last = std::min(n, first + per_row) - 1;
    std::string label = trace.tracks[first].name;
    if (last > first)
      label += " .. " + trace.tracks[last].name + " (" + std::to_string(last - first + 1) + ")";
    rows.push_back({label, first, last});
  }
  return rows;
}

void bin_row(const TimelineTrace& trace, const TimelineRow& row, double t0, double t1, int bins,
             RowBins& out) {
  for (auto* v : {&out.forward, &out.compute, &out.comm, &out.weight})
    v->assign(std::max(0, bins), 0.0f);
  if (bins <= 0 || t1 <= t0) return;
  double per_bin = (t1 - t0) / bins;
  float weight = 1.0f / static_cast<float>(row.last - row.first + 1);
  for (int k = row.first; k <= row.last; ++k) {
    const TimelineTrack& track = trace.tracks[k];
    auto it = std::lower_bound(track.spans.begin(), track.spans.end(), t0 - track.longest,
                               [](const TimelineSpan& s, double t) { return s.start < t; });
    for (; it != track.spans.end() && it->start < t1; ++it) {
      if (it->end <= t0) continue;
      auto& lane = it->phase == Phase::kForward   ? out.forward
                   : it->phase == Phase::kCompute ? out.compute
                   : it->phase == Phase::kWeight  ? out.weight
                                                  : out.comm;
      spread(lane, (it->start - t0) / per_bin, (it->end - t0) / per_bin, weight);
    }
  }
}

const TimelineSpan* span_at(const TimelineTrack& track, double t) {
  auto it = std::upper_bound(track.spans.begin(), track.spans.end(), t,
                             [](double t, const TimelineSpan& s) { return t < s.start; });
  const TimelineSpan* best = nullptr;
  // Spans that start before t and may still cover it (they can overlap: exchange during backward).
  while (it != track.spans.begin()) {
    --it;
    if (it->start < t - track.longest) break;
    if (it->end >= t && (!best || it->phase == Phase::kComm)) best = &*it;
  }
  return best;
}

}  // namespace scaleout::gui

#include "cli/plan_search.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

namespace scaleout::cli {

namespace {

std::string split_text(const core::ModelParallelOutcome& m) {
  std::string s = m.schedule;
  if (m.virtual_stages > 1) s += " v" + std::to_string(m.virtual_stages);
  return s;
}

void print_table(const sim::SplitSearch& s) {
  std::printf("%4s %3s %3s %5s %3s %-14s %-9s %4s %3s %10s %10s %6s %14s  %s\n", "#", "tp", "pp",
              "dp", "mb", "schedule", "recompute", "zero", "sp", "step (s)", "tokens/s", "MFU",
              "memory (GB)", "bottleneck");
  int rank = 0;
  for (const auto& c : s.best) {
    const core::ModelParallelOutcome& m = *c.result.model_parallel;
    std::printf("%4d %3d %3d %5d %3d %-14s %-9s %4d %3s %10.3f %10.0f %5.1f%% %6.1f / %5.1f  %s\n",
                ++rank, m.tensor, m.pipeline, m.data, m.microbatch, split_text(m).c_str(),
                m.recompute.c_str(), m.zero, m.sequence_parallel ? "yes" : "no",
                c.result.step_time_s, m.tokens_per_s, 100 * m.mfu, m.memory.total / 1e9,
                m.memory.capacity / 1e9, c.bottleneck.c_str());
  }
  std::printf("%ld splits evaluated in %.2f s", s.evaluated, s.wall_s);
  for (const auto& [why, count] : s.dropped) std::printf("; %ld left out: %s", count, why.c_str());
  std::printf("\n");
}

nlohmann::json to_json(const sim::SplitSearch& s) {
  nlohmann::json best = nlohmann::json::array();
  for (const auto& c : s.best) {
    nlohmann::json r = core::to_json(c.result);
    best.push_back({{"parallelism", r["parallelism"]},
                    {"step_time_s", c.result.step_time_s},
                    {"tokens_per_s", r["tokens_per_s"]},
                    {"mfu", r["mfu"]},
                    {"memory_bytes", r["memory_bytes"]},
                    {"phases", r["phases"]},
                    {"bottleneck", c.bottleneck}});
  }
  return {{"evaluated", s.evaluated}, {"dropped", s.dropped}, {"wall_s", s.wall_s}, {"best", best}};
}

}  // namespace

int plan_search(const core::Plan& plan, const sim::SplitSearchOptions& options, bool json) {
  sim::SplitSearch s = sim::search_splits(plan, options);
  if (json)
    std::printf("%s\n", to_json(s).dump(2).c_str());
  else
    print_table(s);
  return s.best.empty() ? 1 : 0;
}

}  // namespace scaleout::cli

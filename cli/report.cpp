#include "cli/report.hpp"

#include <algorithm>

namespace scaleout::cli {

void print_summary(std::FILE* out, const core::RunResult& r) {
  std::fprintf(out, "%s %s, %d workers%s, gradient %.1f MB\n", r.engine.c_str(), r.strategy.c_str(),
               r.workers, r.servers ? (", " + std::to_string(r.servers) + " servers").c_str() : "",
               r.bytes / 1e6);
  std::fprintf(out, "  step time           %10.3f ms\n", r.step_time_s * 1e3);
  std::fprintf(out, "  throughput          %10.1f samples/s\n", r.throughput_samples_per_s);
  std::fprintf(out, "  scaling efficiency  %10.1f %%\n", r.scaling_efficiency * 100);
  std::fprintf(out, "  compute             %10.3f ms\n", r.phases.compute_s * 1e3);
  std::fprintf(out, "  communication       %10.3f ms (exposed %.3f ms)\n", r.phases.comm_s * 1e3,
               r.phases.exposed_comm_s * 1e3);
  std::fprintf(out, "  algbw / busbw       %10.2f / %.2f GB/s\n", r.algbw_Bps / 1e9, r.busbw_Bps / 1e9);
  if (!r.links.empty()) {
    auto busiest = std::max_element(r.links.begin(), r.links.end(),
                                    [](const auto& a, const auto& b) { return a.utilization < b.utilization; });
    std::fprintf(out, "  busiest link        %s, %.1f %% utilized\n", busiest->name.c_str(),
                 busiest->utilization * 100);
  }
  if (r.wall_s > 0) std::fprintf(out, "  (%s engine took %.3f s)\n", r.engine.c_str(), r.wall_s);
}

void print_sweep_table(std::FILE* out, const std::vector<core::RunResult>& rows) {
  std::fprintf(out, "%-18s %8s %12s %14s %10s %12s\n", "strategy", "workers", "step (ms)", "samples/s",
               "efficiency", "busbw GB/s");
  for (const auto& r : rows)
    std::fprintf(out, "%-18s %8d %12.3f %14.1f %9.1f%% %12.2f\n", r.strategy.c_str(), r.workers,
                 r.step_time_s * 1e3, r.throughput_samples_per_s, r.scaling_efficiency * 100, r.busbw_Bps / 1e9);
}

}  // namespace scaleout::cli

#include "cli/report_reliability.hpp"

#include <cmath>
#include <string>

namespace scaleout::cli {

namespace {

// A duration in the unit a person reads it in: seconds, minutes, hours or days.
std::string duration(double s) {
  char text[32];
  if (!std::isfinite(s)) return "never";
  if (s < 120)
    std::snprintf(text, sizeof text, "%.1f s", s);
  else if (s < 7200)
    std::snprintf(text, sizeof text, "%.1f min", s / 60);
  else if (s < 3 * 86400)
    std::snprintf(text, sizeof text, "%.1f h", s / 3600);
  else
    std::snprintf(text, sizeof text, "%.1f days", s / 86400);
  return text;
}

}  // namespace

void print_reliability(std::FILE* out, const core::ReliabilityOutcome& o) {
  if (o.samples == 0) {
    std::fprintf(out,
                 "  goodput             %10.1f %% expected (not sampled: %.3g failures expected), "
                 "time to train %s\n",
                 100 * o.goodput, o.failures, duration(o.time_to_train_s).c_str());
    return;
  }
  std::fprintf(out,
               "  goodput             %10.1f %% expected (P10-P90 %.1f-%.1f %% over %d runs)\n",
               100 * o.goodput, 100 * o.goodput_p10, 100 * o.goodput_p90, o.samples);
  std::fprintf(out,
               "  time to train       %10s expected, P10 %s, P50 %s, P90 %s (%s without "
               "failures or checkpoints)\n",
               duration(o.time_to_train_s).c_str(), duration(o.time_to_train_p10_s).c_str(),
               duration(o.time_to_train_p50_s).c_str(), duration(o.time_to_train_p90_s).c_str(),
               duration(o.work_s).c_str());
  std::fprintf(out,
               "  failures            %10.2f expected (job MTBF %s): %s lost, %s restarting, "
               "%s checkpointing\n",
               o.failures, duration(o.job_mtbf_s > 0 ? o.job_mtbf_s : INFINITY).c_str(),
               duration(o.lost_work_s).c_str(), duration(o.restart_s).c_str(),
               duration(o.checkpoint_s).c_str());
  if (o.checkpoint_interval_s > 0)
    std::fprintf(out,
                 "  checkpoint          %10.1f GB every %s: %s stall, %s to storage, %s to read "
                 "back; best interval %s (%.1f %% goodput), Young's %s\n",
                 o.checkpoint_bytes / 1e9, duration(o.checkpoint_interval_s).c_str(),
                 duration(o.checkpoint_cost_s).c_str(), duration(o.checkpoint_write_s).c_str(),
                 duration(o.checkpoint_read_s).c_str(),
                 o.best_checkpoint_interval_s > 0 ? duration(o.best_checkpoint_interval_s).c_str()
                                                  : "none (no failures)",
                 100 * o.best_goodput, duration(o.young_interval_s).c_str());
}

}  // namespace scaleout::cli

#include "cli/report_reliability.hpp"

#include <cmath>

#include "core/results/duration_text.hpp"

namespace scaleout::cli {

using core::duration_text;

void print_reliability(std::FILE* out, const core::ReliabilityOutcome& o) {
  if (o.samples == 0) {
    std::fprintf(out,
                 "  goodput             %10.1f %% expected (not sampled: %.3g failures expected), "
                 "time to train %s\n",
                 100 * o.goodput, o.failures, duration_text(o.time_to_train_s).c_str());
    return;
  }
  std::fprintf(out,
               "  goodput             %10.1f %% expected (P10-P90 %.1f-%.1f %% over %d runs)\n",
               100 * o.goodput, 100 * o.goodput_p10, 100 * o.goodput_p90, o.samples);
  std::fprintf(out,
               "  time to train       %10s expected, P10 %s, P50 %s, P90 %s (%s without "
               "failures or checkpoints)\n",
               duration_text(o.time_to_train_s).c_str(),
               duration_text(o.time_to_train_p10_s).c_str(),
               duration_text(o.time_to_train_p50_s).c_str(),
               duration_text(o.time_to_train_p90_s).c_str(), duration_text(o.work_s).c_str());
  std::fprintf(out,
               "  failures            %10.2f expected (job MTBF %s): %s lost, %s restarting, "
               "%s checkpointing\n",
               o.failures, duration_text(o.job_mtbf_s > 0 ? o.job_mtbf_s : INFINITY).c_str(),
               duration_text(o.lost_work_s).c_str(), duration_text(o.restart_s).c_str(),
               duration_text(o.checkpoint_s).c_str());
  if (o.slow_s > 0)
    std::fprintf(out, "  slow nodes          %10s more for the work at slow nodes' pace\n",
                 duration_text(o.slow_s).c_str());
  if (o.node_wait_s > 0)
    std::fprintf(out, "  waiting for a node  %10s of the restarts (no hot spare left)\n",
                 duration_text(o.node_wait_s).c_str());
  if (o.checkpoint_interval_s > 0)
    std::fprintf(
        out,
        "  checkpoint          %10.1f GB every %s: %s stall, %s to storage, %s to read "
        "back%s; best interval %s (%.1f %% goodput), Young's %s\n",
        o.checkpoint_bytes / 1e9, duration_text(o.checkpoint_interval_s).c_str(),
        duration_text(o.checkpoint_cost_s).c_str(), duration_text(o.checkpoint_write_s).c_str(),
        duration_text(o.checkpoint_read_s).c_str(),
        o.checkpoint_timed_by == "SimGrid" ? " (simulated on the links)" : "",
        o.best_checkpoint_interval_s > 0 ? duration_text(o.best_checkpoint_interval_s).c_str()
                                         : "none (no failures)",
        100 * o.best_goodput, duration_text(o.young_interval_s).c_str());
}

}  // namespace scaleout::cli

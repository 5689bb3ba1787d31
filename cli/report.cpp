#include "cli/report.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "cli/report_reliability.hpp"
#include "core/files/atomic_file.hpp"
#include "core/results/compare.hpp"

namespace scaleout::cli {

namespace {
std::string r_count(std::size_t rows) {
  return "(" + std::to_string(rows) + (rows == 1 ? " row) " : " rows) ");
}

// Stages' layers with runs of equal ones folded: "7, 14 x 8, 7".
std::string stage_layers_text(const std::vector<int>& layers) {
  std::string text;
  for (std::size_t i = 0; i < layers.size();) {
    std::size_t run = 1;
    while (i + run < layers.size() && layers[i + run] == layers[i]) ++run;
    if (!text.empty()) text += ", ";
    text += (run > 1 ? std::to_string(run) + " x " : "") + std::to_string(layers[i]);
    i += run;
  }
  return text;
}

// The split, the transformer's figures and the worst stage's memory of a model-parallel result.
void print_model_parallel(std::FILE* out, const core::ModelParallelOutcome& m) {
  if (m.active_parameters > 0 && m.active_parameters < m.parameters) {
    bool billions = m.parameters >= 1e9;
    double unit = billions ? 1e9 : 1e6;
    const char* suffix = billions ? "B" : "M";
    std::fprintf(out,
                 "  model               %10.2f%s parameters, %.2f%s active a token (experts)\n",
                 m.parameters / unit, suffix, m.active_parameters / unit, suffix);
  }
  std::string context = m.context > 1 ? " x context " + std::to_string(m.context) : "";
  std::fprintf(out,
               "  split               tensor %d%s x pipeline %d x data %d, %d micro-batches of %d "
               "(%s%s, recompute %s, ZeRO %d%s%s%s%s)\n",
               m.tensor, context.c_str(), m.pipeline, m.data, m.microbatches, m.microbatch,
               m.schedule.c_str(),
               m.virtual_stages > 1 ? (" v=" + std::to_string(m.virtual_stages)).c_str() : "",
               m.recompute.c_str(), m.zero, m.sequence_parallel ? ", sequence parallel" : "",
               m.overlap_grad_reduce ? ", gradient reduce overlapped" : "",
               m.overlap_param_gather ? ", parameter gather overlapped" : "",
               m.tp_comm_overlap ? ", tensor collectives overlapped" : "");
  if (!m.stage_layers.empty()) {
    std::string moe =
        m.stage_moe_layers.empty() ? "" : "; MoE layers " + stage_layers_text(m.stage_moe_layers);
    std::fprintf(out, "  stages              layers a stage %s%s\n",
                 stage_layers_text(m.stage_layers).c_str(), moe.c_str());
  }
  std::fprintf(out,
               "  model FLOPs         %10.1f TFLOP/s per device, MFU %.1f %%; Megatron-LM's count "
               "(with recomputation) %.1f TFLOP/s\n",
               m.model_flops_per_s_per_device / 1e12, m.mfu * 100,
               m.megatron_flops_per_s_per_device / 1e12);
  std::fprintf(out,
               "  pipeline bubble     %10.3f ms; tensor %.3f ms, pipeline %.3f ms, data %.3f ms "
               "of communication\n",
               m.bubble_s * 1e3, m.tensor_comm_s * 1e3, m.pipeline_comm_s * 1e3,
               m.data_comm_s * 1e3);
  if (m.expert > 1)
    std::fprintf(out,
                 "  experts             %10.3f ms of %s all-to-all (dispatch%s and combine) over "
                 "%d expert-parallel ranks; each data group of %d splits into them\n",
                 m.expert_comm_s * 1e3, m.expert_alltoall.c_str(),
                 m.expert_dispatch_precision == "fp8" ? " in fp8" : "", m.expert, m.data);
  if (m.context > 1)
    std::fprintf(out,
                 "  context             %10.3f ms of key-value exchange (%s) not hidden by the "
                 "attention, over %d ranks splitting each sequence\n",
                 m.context_comm_s * 1e3, m.context_exchange.c_str(), m.context);
  const core::MemoryBreakdown& mem = m.memory;
  std::fprintf(out,
               "  memory (stage %d)    %10.1f GB of %.1f GB: parameters %.1f, gradients %.1f, "
               "optimizer %.1f, activations %.1f\n",
               mem.stage, mem.total / 1e9, mem.capacity / 1e9, mem.parameters / 1e9,
               mem.gradients / 1e9, mem.optimizer / 1e9, mem.activations / 1e9);
}

// A model-parallel run counts sequences and tokens, and its gradient is one rank's shard; its
// "scaling efficiency" is the share of the step spent on model FLOPs at the achieved rate.
void print_header(std::FILE* out, const core::RunResult& r) {
  std::string servers = r.servers ? ", " + std::to_string(r.servers) + " servers" : "";
  if (!r.model_parallel) {
    std::fprintf(out, "%s %s, %d workers%s, gradient %.1f MB\n", r.engine.c_str(),
                 r.strategy.c_str(), r.workers, servers.c_str(), r.bytes / 1e6);
    std::fprintf(out, "  step time           %10.3f ms\n", r.step_time_s * 1e3);
    std::fprintf(out, "  throughput          %10.1f samples/s\n", r.throughput_samples_per_s);
    std::fprintf(out, "  scaling efficiency  %10.1f %%\n", r.scaling_efficiency * 100);
    return;
  }
  const core::ModelParallelOutcome& m = *r.model_parallel;
  std::fprintf(
      out, "%s %s, %d devices%s, gradient %.1f MB a rank (its shard, over a data group of %d)\n",
      r.engine.c_str(), r.strategy.c_str(), r.workers, servers.c_str(), r.bytes / 1e6,
      m.data * m.context);  // a context group's ranks exchange with the rest
  std::fprintf(out, "  step time           %10.3f ms\n", r.step_time_s * 1e3);
  std::fprintf(out, "  throughput          %10.1f sequences/s, %.0f tokens/s (%.1f per device)\n",
               r.throughput_samples_per_s, m.tokens_per_s, m.tokens_per_s / std::max(1, r.workers));
  std::fprintf(out,
               "  compute share       %10.1f %% of the step on model FLOPs at the achieved rate\n",
               r.scaling_efficiency * 100);
}

}  // namespace

void print_summary(std::FILE* out, const core::RunResult& r) {
  print_header(out, r);
  if (r.baseline_workers > 0)
    std::fprintf(out, "  vs %d workers    %10.1f %% (throughput per worker against theirs)\n",
                 r.baseline_workers, r.baseline_efficiency * 100);
  if (r.model_parallel)
    print_model_parallel(out, *r.model_parallel);
  else
    std::fprintf(out, "  gradient buckets    %10.0f (%s fusion)%s\n", r.buckets, r.fusion.c_str(),
                 r.grid.empty() ? "" : (", torus grid " + r.grid).c_str());
  std::fprintf(out, "  compute             %10.3f ms\n", r.phases.compute_s * 1e3);
  std::fprintf(out, "  communication       %10.3f ms (exposed %.3f ms)\n", r.phases.comm_s * 1e3,
               r.phases.exposed_comm_s * 1e3);
  if (r.phases.idle_s > 0 && !r.model_parallel)
    std::fprintf(out,
                 "  idle                %10.3f ms (waiting for slower workers or the servers)\n",
                 r.phases.idle_s * 1e3);
  if (r.model_parallel && r.model_parallel->zero >= 2)  // many collectives, partly hidden
    std::fprintf(out, "  algbw / busbw       none: ZeRO-%d's collectives run a layer at a time\n",
                 r.model_parallel->zero);
  else
    std::fprintf(out, "  algbw / busbw       %10.2f / %.2f GB/s\n", r.algbw_Bps / 1e9,
                 r.busbw_Bps / 1e9);
  if (r.compression)
    std::fprintf(
        out,
        "  compression         %10s, %.2f MB on the wire per worker a step (%.2f MB "
        "without); codec %.3f ms at the compressors' rates; error feedback %.1f MB\n",
        (r.compression->kind + (r.compression->shared_indices ? " (shared indices)" : "")).c_str(),
        r.compression->wire_bytes / 1e6, r.compression->wire_bytes_uncompressed / 1e6,
        r.compression->codec_s * 1e3, r.compression->error_feedback_bytes / 1e6);
  if (r.staleness.mean > 0 || r.gradients.dropped > 0)
    std::fprintf(
        out,
        "  staleness           %10.2f mean (p50 %d, p99 %d, max %d); %ld applied, %ld dropped\n",
        r.staleness.mean, r.staleness.p50, r.staleness.p99, r.staleness.max, r.gradients.applied,
        r.gradients.dropped);
  if (r.compensation && r.step_time_s > 0)  // each worker pushes to each server once a step
    std::fprintf(out,
                 "  delay compensation  lambda %g: %.2f ms a push on each server (%.0f%% of its "
                 "step); pulled copies %.1f MB a server\n",
                 r.compensation->lambda, r.compensation->update_s * 1e3,
                 100 * r.workers * r.compensation->update_s / r.step_time_s,
                 r.compensation->pulled_bytes / 1e6);
  if (r.resilience.policy != "none" || r.resilience.checkpoint_s > 0) {
    // Failures change the answer: the failure-free step above is not what the run achieves.
    std::fprintf(
        out,
        "  with failures       %10.1f samples/s goodput over %.3f s (%s: %d failures, %.3f s lost, "
        "%.3f s restarting, %.3f s checkpointing)\n",
        r.resilience.goodput_samples_per_s, r.resilience.wall_s, r.resilience.policy.c_str(),
        r.resilience.failures, r.resilience.lost_work_s, r.resilience.restart_s,
        r.resilience.checkpoint_s);
  }
  if (r.reliability) print_reliability(out, *r.reliability);
  if (!r.links.empty()) {
    auto busiest = std::max_element(
        r.links.begin(), r.links.end(),
        [](const auto& a, const auto& b) { return a.utilization < b.utilization; });
    std::fprintf(out, "  busiest link        %s, %.1f %% utilized\n", busiest->name.c_str(),
                 busiest->utilization * 100);
  }
  if (r.wall_s > 0) std::fprintf(out, "  (%s engine took %.3f s)\n", r.engine.c_str(), r.wall_s);
}

void print_warnings(std::FILE* out, const std::vector<core::RunResult>& rows) {
  std::map<std::string, std::vector<std::string>> where;  // warning -> the rows it applies to
  for (const auto& r : rows)
    for (const auto& w : r.warnings)
      where[w].push_back(r.strategy + "/" + std::to_string(r.workers));
  for (const auto& [warning, at] : where) {
    std::string rows_it_applies_to = rows.size() > 1 ? r_count(at.size()) : "";
    std::fprintf(out, "warning: %s%s\n", rows_it_applies_to.c_str(), warning.c_str());
  }
}

bool emit_result(const core::RunResult& r, const core::Plan& plan, const std::string& path,
                 bool json) {
  core::RunResult stamped = r;
  stamped.stamp = core::plan_stamp(plan);
  std::string text = core::to_json(stamped).dump(2) + "\n";
  if (!path.empty()) core::write_file_atomic(path, text);
  print_warnings(stderr, {r});
  if (json) {
    std::fputs(text.c_str(), stdout);
    return true;
  }
  print_summary(stdout, r);
  return false;
}

void print_sweep_table(std::FILE* out, const std::vector<core::RunResult>& rows,
                       const std::vector<std::string>& varied,
                       const std::vector<std::vector<std::string>>& values) {
  int baseline = rows.empty() ? 0 : rows.front().baseline_workers;
  std::string vs = "vs " + std::to_string(baseline);
  std::vector<int> widths;  // a varied column is as wide as its name or its widest value
  for (std::size_t c = 0; c < varied.size(); ++c) {
    std::size_t w = varied[c].size();
    for (const auto& row : values) w = std::max(w, row[c].size());
    widths.push_back(static_cast<int>(w));
    std::fprintf(out, "%-*s ", widths[c], varied[c].c_str());
  }
  std::fprintf(out, "%-18s %8s %12s %14s %10s %12s %8s %9s", "strategy", "workers", "step (ms)",
               "samples/s", "efficiency", "busbw GB/s", "buckets", "grid");
  if (baseline) std::fprintf(out, " %10s", vs.c_str());
  std::fprintf(out, "\n");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const core::RunResult& r = rows[i];
    for (std::size_t c = 0; c < varied.size(); ++c)
      std::fprintf(out, "%-*s ", widths[c], values[i][c].c_str());
    std::fprintf(out, "%-18s %8d %12.3f %14.1f %9.1f%% %12.2f %8.0f %9s", r.strategy.c_str(),
                 r.workers, r.step_time_s * 1e3, r.throughput_samples_per_s,
                 r.scaling_efficiency * 100, r.busbw_Bps / 1e9, r.buckets,
                 r.grid.empty() ? "-" : r.grid.c_str());
    if (baseline && r.baseline_workers) std::fprintf(out, " %9.1f%%", r.baseline_efficiency * 100);
    std::fprintf(out, "\n");
  }
}

void print_collective_table(std::FILE* out, const core::RunResult& r) {
  // As nccl-tests names the element types.
  const char* type = r.precision == "fp16" ? "half" : r.precision == "bf16" ? "bfloat16" : "float";
  double count = r.bytes / (r.precision == "fp32" ? 4 : 2);
  std::fprintf(out, "#%13s %12s %8s %6s %-22s %10s %8s %8s %7s\n", "size", "count", "type", "redop",
               "algorithm", "time(us)", "algbw", "busbw", "#wrong");
  std::fprintf(out, "#%13s %12s %8s %6s %-22s %10s %8s %8s %7s\n", "(B)", "(elements)", "", "", "",
               "", "(GB/s)", "(GB/s)", "");
  auto row = [&](const std::string& name, double time, double algbw, double busbw, long wrong) {
    std::fprintf(out, " %13.0f %12.0f %8s %6s %-22s %10.1f %8.3f %8.3f %7ld\n", r.bytes, count,
                 type, "sum", name.c_str(), time * 1e6, algbw / 1e9, busbw / 1e9, wrong);
  };
  row("scaleout " + r.strategy, r.phases.comm_s, r.algbw_Bps, r.busbw_Bps, r.wrong);
  for (const auto& b : r.baselines) {
    if (!b.error.empty()) {
      std::fprintf(out, "#   %s: not available here (%s)\n", b.name.c_str(), b.error.c_str());
      continue;
    }
    row(b.name, b.time_s, b.algbw_Bps, b.busbw_Bps, b.wrong);
    if (b.busbw_Bps > 0)
      std::fprintf(out, "#   scaleout %s / %s busbw ratio: %.2f\n", r.strategy.c_str(),
                   b.name.c_str(), r.busbw_Bps / b.busbw_Bps);
  }
}

void print_comparison(std::FILE* out, const core::RunResult& p, const core::RunResult& m) {
  std::fprintf(out, "%-22s %16s %16s %10s\n", "", ("predicted (" + p.engine + ")").c_str(),
               ("measured (" + m.engine + ")").c_str(), "error");
  for (const auto& v : core::compare_results(p, m)) {
    // Times in ms, bandwidth in GB/s, the rest as they are.
    bool time = v.name == "step_time_s" || v.name == "median_step_s" || v.name == "comm_s";
    bool bandwidth = v.name == "busbw_Bps";
    double scale = time ? 1e3 : bandwidth ? 1e-9 : 1;
    const char* unit = time                                   ? "ms"
                       : bandwidth                            ? "GB/s"
                       : v.name == "throughput_samples_per_s" ? "/s"
                                                              : "";
    std::fprintf(out, "%-22s %12.3f%-4s %12.3f%-4s", v.label.c_str(), v.predicted * scale, unit,
                 v.measured * scale, unit);
    if (v.has_error)
      std::fprintf(out, " %9.1f%%", v.relative_error * 100);
    else if (v.measured == 0 && v.name != "staleness_mean")
      std::fprintf(out, "  not measured");
    std::fprintf(out, "\n");
  }
  std::fprintf(out,
               "error = (predicted - measured) / measured: positive where the prediction is "
               "higher (a longer step, a higher throughput), negative where it is lower\n");
}

}  // namespace scaleout::cli

// The one result schema every engine produces (DESIGN.md, "The result"), and its JSON form.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/codecs/compression.hpp"
#include "core/codecs/delay_compensation.hpp"
#include "core/model/model_memory.hpp"
#include "core/plan/plan_stamp.hpp"

namespace scaleout::core {

// Per step: compute_s + exposed_comm_s + idle_s = the step time; exposed_comm_s <= comm_s.
struct PhaseTimes {
  double compute_s = 0;       // per step, per worker (mean)
  double comm_s = 0;          // time the gradient exchange was in flight, per step
  double exposed_comm_s = 0;  // step time not hidden behind compute, at most comm_s
  double idle_s = 0;          // the rest of the step: waiting for slower workers or the servers
};

struct LinkLoad {
  std::string name;
  double bytes = 0;        // both directions, over the whole run
  double utilization = 0;  // busiest direction's bytes / (bandwidth x run time)
};

struct Staleness {
  double mean = 0;
  int p50 = 0, p99 = 0, max = 0;
  std::vector<long> histogram;  // histogram[s]: gradients applied with staleness s
};

struct StepTime {
  int step = 0;
  double time_s = 0;
};

struct Gradients {
  long applied = 0;  // gradients the servers applied (collectives: workers x steps)
  long dropped = 0;  // gradients dropped as stale (sync PS with backup workers)
};

struct ResilienceOutcome {
  std::string policy = "none";  // none | restart_from_checkpoint | continue_without_failed_workers
  int failures = 0;
  double wall_s = 0;
  double lost_work_s = 0;
  double restart_s = 0;
  double checkpoint_s = 0;
  double goodput_samples_per_s = 0;
  std::vector<int> left_workers;
};

// A long run under random failures (plans with `reliability:`, see core/reliability/goodput.hpp):
// the closed form's expectation, the best checkpoint interval, and the spread of sampled runs.
struct ReliabilityOutcome {
  double goodput = 0;            // expected share of wall time spent on work kept
  double time_to_train_s = 0;    // expected wall time of the whole run
  double work_s = 0;             // the same run without failures or checkpoints
  double job_mtbf_s = 0;         // 0: the job never fails
  double failures = 0;           // expected
  double lost_work_s = 0;        // work thrown away and redone
  double restart_s = 0;          // restarting, all failures together (node_wait_s included)
  double node_wait_s = 0;        // of that, waiting for a node: no hot spare left
  double slow_s = 0;             // the work's extra time at a slow node's pace
  double checkpoint_s = 0;       // checkpoint stalls, all together
  double checkpoint_cost_s = 0;  // one checkpoint's stall
  double checkpoint_write_s = 0;
  double checkpoint_read_s = 0;
  double checkpoint_bytes = 0;
  double checkpoint_interval_s = 0;       // work between checkpoints (0: none)
  double best_checkpoint_interval_s = 0;  // maximizes goodput (0: no failures, none needed)
  double best_goodput = 0;
  double young_interval_s = 0;  // sqrt(2 x stall x MTBF)
  // What timed the checkpoint's transfers to storage: "SimGrid" (on the platform's links),
  // "closed form", or "" (`checkpoint.cost` given, or no checkpoints).
  std::string checkpoint_timed_by;
  int samples = 0;
  double time_to_train_p10_s = 0, time_to_train_p50_s = 0, time_to_train_p90_s = 0;
  double goodput_p10 = 0, goodput_p50 = 0, goodput_p90 = 0;
};

// An all-reduce run by another implementation on the same data, for comparison (executed runs).
struct Baseline {
  std::string name;  // gloo_ring_chunked | gloo_halving_doubling
  double time_s = 0;
  double algbw_Bps = 0;
  double busbw_Bps = 0;
  long wrong = 0;
  std::string error;  // why it could not run here (e.g. an NCCL algorithm not available); no times
};

// What a model-parallel run adds (plans with `parallelism:`): the split, the transformer's
// throughput in tokens and model FLOPs, the step's parts and the worst stage's memory.
struct ModelParallelOutcome {
  int tensor = 1, pipeline = 1, data = 1;
  int microbatch = 1;    // sequences per micro-batch
  int microbatches = 1;  // per replica per iteration
  int virtual_stages = 1;
  // Each stage's layers where they differ (uneven stages, the embedding and the loss counted as
  // layers); empty where every stage holds the same.
  std::vector<int> stage_layers;
  // Each stage's MoE layers where chunks hold other shares of them than the model (dense leading
  // layers, a moe.every that does not repeat in every chunk); empty otherwise.
  std::vector<int> stage_moe_layers;
  std::string schedule = "1f1b";
  std::string recompute = "none";
  bool sequence_parallel = false;
  int zero = 0;
  int expert = 1;  // the expert-parallel degree (it splits `data`)
  // "pairwise", "hierarchical" or "deduplicated"; "bf16" or "fp8" (both empty without experts)
  std::string expert_alltoall;
  std::string expert_dispatch_precision;
  int context = 1;                    // the context-parallel degree (beside `data`)
  std::string context_exchange;       // "ring" or "allgather" (empty without context parallelism)
  bool overlap_grad_reduce = false;   // Megatron-Core's: buckets exchanged during backward
  bool overlap_param_gather = false;  // and the parameters gathered in the next first forward
  bool tp_comm_overlap = false;       // Megatron-Core's: tensor collectives beside the products
  double tokens_per_s = 0;
  double parameters = 0;         // the model's, every expert counted
  double active_parameters = 0;  // those one token passes through (all of them without experts)
  double model_flops_per_s_per_device = 0;  // model FLOPs (72 s l h^2 ... per sequence) achieved
  double mfu = 0;                           // model_flops_per_s_per_device / device peak
  // The same in Narayanan et al. 2021's convention, which counts full recomputation's forward
  // (96 s l h^2 (1 + s/6h + V/16lh) a sequence): what their Table 1 reports.
  double megatron_flops_per_s_per_device = 0;
  double bubble_s = 0;         // the busiest stage's idle time inside the pipeline
  double tensor_comm_s = 0;    // tensor-group collectives on the busiest stage (on its path)
  double expert_comm_s = 0;    // expert-parallel all-to-alls on the busiest stage (on its path)
  double context_comm_s = 0;   // context-group key-value exchanges the attention did not hide
  double pipeline_comm_s = 0;  // activation and gradient transfers between stages, in flight
  double data_comm_s = 0;      // the data group's gradient exchange (and ZeRO's gathers)
  MemoryBreakdown memory;      // the stage needing the most memory
};

struct RunResult {
  std::string engine;  // sim | analytic | cpu | cuda
  std::string strategy;
  std::string fidelity;  // sim: fast | step; empty for other engines
  std::string plan;      // plan file
  std::string cluster;
  std::string workload;
  std::string network_model;
  int workers = 0;
  int servers = 0;
  std::string precision = "fp32";  // the gradient's element type: fp32 | fp16 | bf16
  double bytes = 0;  // gradient bytes per step (elements x the precision's bytes: what moves)
  double step_time_s = 0;
  double throughput_samples_per_s = 0;
  double scaling_efficiency = 0;
  PhaseTimes phases;
  double algbw_Bps = 0;
  double busbw_Bps = 0;
  Staleness staleness;
  std::vector<StepTime> steps;
  std::vector<LinkLoad> links;
  Gradients gradients;
  ResilienceOutcome resilience;
  std::optional<ReliabilityOutcome> reliability;  // plans with `reliability:`
  long wrong = 0;  // executed runs: elements that differed from the exact sum (nccl-tests' #wrong)
  std::vector<Baseline> baselines;
  double wall_s = 0;  // seconds the engine itself took
  // What makes this answer less sure than the engine's tested range (e.g. a closed form used
  // where no test holds it to the simulator). Printed as warnings; empty when none.
  std::vector<std::string> warnings;
  // How the gradient left each step: the fusion kind, its bucket count (1 for the parameter
  // server's whole-gradient exchanges) and, for torus2d, the grid used ("8x16": X x Y).
  std::string fusion = "legacy";
  double buckets = 0;
  std::string grid;
  // Scaling efficiency against a baseline size (--baseline-workers B): (throughput / N) /
  // (throughput at B / B). 0 workers: none asked for.
  int baseline_workers = 0;
  double baseline_efficiency = 0;
  std::optional<ModelParallelOutcome> model_parallel;  // plans with `parallelism:` only
  // Plans with training.compression: per worker and step, the wire bytes without and with it,
  // the codec's seconds at the device's rates, the error-feedback buffers.
  std::optional<CompressionStep> compression;
  // Plans with strategy.delay_compensation: what the servers' compensation costs (per push and
  // its pull; memory of the pulled copies per server).
  std::optional<CompensationCost> compensation;
  std::optional<PlanStamp> stamp;  // what it was computed from; none in results before stamps
};

// Sets r's baseline efficiency against `base`, a result of the same plan at fewer or more workers.
void set_baseline(RunResult& r, const RunResult& base);

nlohmann::json to_json(const RunResult& r);
// Throws std::runtime_error naming the missing key.
RunResult result_from_json(const nlohmann::json& j);

// Mean, p50, p99 and max from a staleness histogram.
Staleness staleness_from_histogram(std::vector<long> histogram);

// Fills exposed communication (step - compute, at most comm) and idle time (the rest), then
// throughput, scaling efficiency, algbw and busbw, from step time, compute time and comm time.
// Scaling efficiency is throughput at N over N times one worker's, where one worker takes exactly
// the compute time (it has nothing to exchange). busbw = algbw * 2(N-1)/N as nccl-tests defines it.
void fill_derived(RunResult& r, int batch_per_worker);

// For programs where not every gradient trains the model (parameter servers: asynchronous, backup
// workers, softsync): throughput is the applied gradients' samples over `span_s`, and scaling
// efficiency that throughput over N workers each doing a batch per compute time. Equal to
// fill_derived's when every worker's gradient is applied every step. Every engine calls this one.
void derive_from_applied(RunResult& r, int batch_per_worker, double applied, double span_s);

}  // namespace scaleout::core

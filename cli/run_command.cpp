#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include "cli/commands.hpp"
#include "cli/plan_args.hpp"
#include "cli/report.hpp"
#include "core/files/atomic_file.hpp"
#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"
#include "core/programs/strategies/ps_training.hpp"
#include "exec/cuda_backend.hpp"
#include "exec/emulated_cluster.hpp"
#include "exec/local_run.hpp"
#include "exec/schedule_check.hpp"
#include "exec/schedule_fabric.hpp"

namespace scaleout::cli {

namespace {

struct RunArgs {
  PlanArgs plan;
  std::string backend = "cpu";
  std::string cluster = "local";
  std::string launch = "local";
  std::string store;
  std::string output;
  std::string trace;
  double compute_scale = -1;  // not given: the backend's default (compute_scale_for)
  double timeout_s = 20;
  bool no_baselines = false;
  bool json = false;
  bool dry_run = false;
};

// The share of the plan's FLOPs each step computes: all of them on a GPU (the device the plan
// describes, or near it), a CPU-sized share on CPU processes unless --compute-scale says otherwise.
double compute_scale_for(const RunArgs& args) {
  if (args.compute_scale >= 0) return args.compute_scale;
  return args.backend == "cuda" ? 1.0 : 1e-4;
}

// "r" or "r:step" from the environment variable `name`, when it is set.
void rank_and_step_from_env(const char* name, int& rank, int& step) {
  const char* value = std::getenv(name);
  if (!value) return;
  std::string v = value;
  rank = std::atoi(v.c_str());
  auto colon = v.find(':');
  if (colon != std::string::npos) step = std::atoi(v.c_str() + colon + 1);
}

// The faults the test suite injects into the ranks' processes (exec/faults.hpp), read here so
// that no library reads the environment: SCALEOUT_KILL_RANK=r[:step] kills rank r at that step,
// SCALEOUT_STOP_RANK=r[:step] stops it (SIGSTOP), SCALEOUT_CORRUPT_RANK=r[:step] spoils one
// element of worker r's gradient after that step's exchange; SCALEOUT_DROP_ERROR_FEEDBACK and
// SCALEOUT_DROP_DELAY_COMPENSATION run without what the checks expect.
exec::Faults faults_from_environment() {
  exec::Faults f;
  rank_and_step_from_env("SCALEOUT_KILL_RANK", f.kill_rank, f.kill_step);
  rank_and_step_from_env("SCALEOUT_STOP_RANK", f.stop_rank, f.stop_step);
  rank_and_step_from_env("SCALEOUT_CORRUPT_RANK", f.corrupt_rank, f.corrupt_step);
  f.drop_error_feedback = std::getenv("SCALEOUT_DROP_ERROR_FEEDBACK") != nullptr;
  f.drop_delay_compensation = std::getenv("SCALEOUT_DROP_DELAY_COMPENSATION") != nullptr;
  return f;
}

// Whether the ranks' groups complete as NCCL runs grouped calls; says which wait when not.
bool completes(const std::vector<std::vector<exec::OpGroup>>& ranks) {
  std::string hangs = exec::nccl_schedule_hangs(ranks);
  if (hangs.empty()) return true;
  std::fprintf(stderr, "error: these calls would hang under NCCL's grouped semantics: %s\n",
               hangs.c_str());
  return false;
}

// --backend cuda: prints the NCCL schedule (--dry-run, no GPU needed) and returns its exit code,
// or checks that this build and machine can run the plan on GPUs. Returns -1 to go on running.
int prepare_cuda(const RunArgs& args, const core::Plan& plan, exec::ExecOptions& options) {
  if (args.dry_run) {
    auto ranks = exec::schedule_plan(plan);
    std::printf(
        "# NCCL calls of one training step: %s, %zu ranks; a line per ncclGroupStart/End,"
        " ranges in %s elements (%s)\n",
        core::strategy_name(plan.strategy.kind), ranks.size(),
        plan.parallelism ? "activation (stages, tensor groups) or gradient (data groups)"
                         : "gradient",
        plan.training.gradient_precision.c_str());
    std::fputs(exec::format_schedule(ranks).c_str(), stdout);
    if (!completes(ranks)) return 1;
    std::printf("# checked: every rank's groups complete under NCCL's grouped semantics\n");
    return 0;
  }
  // A model-parallel schedule is checked as the dry run checks it before any GPU could hang on it.
  if (plan.parallelism && !completes(exec::schedule_plan(plan))) return 1;
  // Under --launch external each process checks its own device.
  std::string why = gpus_unavailable(plan, args.launch == "local");
  if (!why.empty()) {
    std::fprintf(stderr, "error: --backend cuda cannot run here: %s\n", why.c_str());
    return 1;
  }
  options.backend = exec::Backend::kCuda;
  return -1;
}

// This process's one rank of an externally launched job; rank 0 returns the run's result.
std::optional<core::RunResult> run_external_rank(const RunArgs& args, const core::Plan& plan,
                                                 const exec::ExecOptions& options) {
  if (args.store.empty())
    throw core::InputError("", 0, "--store", "--launch external needs a shared --store DIR");
  auto me = exec::external_rank_from_environment();
  if (!me)
    throw core::InputError(
        "", 0, "--launch",
        "no rank found: set TF_CONFIG, or start under mpirun (OMPI_COMM_WORLD_RANK/SIZE, "
        "PMI_RANK/SIZE) or srun (SLURM_PROCID/NTASKS)");
  auto mine = exec::run_external(plan, options, *me, args.store);
  if (!mine)
    std::printf("rank %d of %d done (%s); rank 0 reports the run\n", me->rank, me->size,
                me->source.c_str());
  return mine;
}

int run_plan(const RunArgs& args) {
  if (args.dry_run && args.backend != "cuda")
    throw core::InputError("", 0, "--dry-run",
                           "prints the NCCL schedule: use it with --backend cuda");
  core::Plan plan = load_plan_args(args.plan);
  exec::ExecOptions options;
  if (args.backend == "cuda") {
    if (!args.dry_run) {
      exec::check_executable(plan);
      if (plan.parallelism) exec::check_nccl_schedulable(plan);
      if (plan.training.compression.on() && plan.strategy.kind == core::StrategyKind::kPs)
        throw core::InputError(plan.file, plan.training.compression.line, "training.compression",
                               "the GPU codecs serve the ring; a compressed parameter server "
                               "runs on the CPU backend (Gloo) in this version");
    }
    int code = prepare_cuda(args, plan, options);
    if (code >= 0) return code;
  }
  options.compute_scale = compute_scale_for(args);
  options.timeout = std::chrono::milliseconds(static_cast<long>(args.timeout_s * 1000));
  options.baselines = !args.no_baselines;
  options.trace_path = args.trace;
  if (args.cluster == "emulated") {
    use_emulated_cluster(options, &plan);
  }
  options.faults = faults_from_environment();
  core::RunResult result;
  try {
    if (args.launch == "external") {
      auto mine = run_external_rank(args, plan, options);
      if (!mine) return 0;
      result = *mine;
    } else {
      result = exec::run_local(plan, options);
    }
  } catch (const exec::RunFailed& e) {
    std::fprintf(stderr, "error: the run failed: %s\n", e.what());
    return 1;
  }
  // The all-reduce table describes a data-parallel exchange; a model-parallel run has its summary.
  if (!emit_result(result, plan, args.output, args.json) && !result.model_parallel)
    print_collective_table(stdout, result);
  int code = 0;
  if (result.wrong > 0) {
    const char* what = plan.strategy.delay_compensation.on
                           ? "from the parameters replayed from each server's compensated updates"
                       : plan.training.compression.on()
                           ? "from the exact sum (with compression: from what every worker's "
                             "compressor emitted)"
                           : "from the exact sum";
    std::fprintf(stderr, "error: %ld elements differ %s\n", result.wrong, what);
    code = 1;
  }
  for (const auto& b : result.baselines)
    if (b.wrong > 0) {
      std::fprintf(stderr, "error: %s left %ld elements that differ from the exact sum\n",
                   b.name.c_str(), b.wrong);
      code = 1;
    }
  return code;
}

}  // namespace

Action add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand("run",
                                     "Execute a plan for real: one process per rank, the same "
                                     "strategy code, real gradients, checked sums.\n"
                                     "Example: scaleout run experiments/quickstart.yaml --workers "
                                     "4 --strategy ring -o measured.json");
  add_plan_options(cmd, args->plan);
  cmd->add_option("--backend", args->backend, "cpu (Gloo over TCP) or cuda (NCCL)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  cmd->add_option("--cluster", args->cluster, "local (this machine, loopback) or emulated")
      ->check(CLI::IsMember({"local", "emulated"}));
  cmd->add_option("--launch", args->launch,
                  "local: start every rank here; external: run the one rank that TF_CONFIG, mpirun "
                  "(OMPI_COMM_WORLD_RANK/SIZE, PMI_RANK/SIZE) or srun (SLURM_PROCID/NTASKS) gives "
                  "this process")
      ->check(CLI::IsMember({"local", "external"}));
  cmd->add_option("--store", args->store,
                  "external: a directory every rank sees (shared across hosts)")
      ->check(non_empty_path());
  cmd->add_option("-o,--output", args->output, "write the measured result JSON here (rank 0)")
      ->check(non_empty_path());
  cmd->add_option("--trace", args->trace, "write a Chrome trace of the run here")
      ->check(non_empty_path());
  cmd->add_option("--compute-scale", args->compute_scale,
                  "share of the plan's FLOPs each step really computes (default: 1 with --backend "
                  "cuda, 1e-4 on CPUs)")
      ->check(finite_range(0.0, 1.0));
  cmd->add_option("--timeout", args->timeout_s,
                  "seconds a rank waits for a peer before the run fails")
      ->check(positive_number());
  cmd->add_flag("--no-baselines", args->no_baselines,
                "skip timing Gloo's (cpu) or NCCL's (cuda) own collectives");
  cmd->add_flag("--json", args->json, "print the result JSON on stdout");
  cmd->add_flag("--dry-run", args->dry_run,
                "with --backend cuda: print each rank's NCCL calls for one training step, "
                "grouped as issued (needs no GPU)");

  return [args]() { return run_plan(*args); };
}

}  // namespace scaleout::cli

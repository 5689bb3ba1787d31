#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "cli/plan_args.hpp"
#include "cli/report.hpp"
#include "core/files/atomic_file.hpp"
#include "core/model/compute_rate.hpp"
#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"
#include "core/programs/strategies/ps_training.hpp"
#include "core/results/compare.hpp"
#include "exec/emulated_cluster.hpp"
#include "exec/local_run.hpp"
#include "sim/simulator.hpp"

namespace scaleout::cli {

namespace {

struct ValidateArgs {
  PlanArgs plan;
  std::string cluster = "local";
  std::string backend = "cpu";
  double tolerance = 0.10;
  std::string output;
};

// With overlap, compute is what the exchange hides behind: each worker computes about as long as
// the exchange takes. The executed ranks get an emulated device of the simulated device's rate
// (a wait that leaves the CPU free, as a GPU leaves its host): this machine's cores cannot run
// every rank's compute and their TCP at once, and the question here is the overlap.
double size_compute_to_exchange(core::Plan& plan, double exchange_s) {
  plan.workload.measured_throughput.clear();  // the compute is sized here, not measured
  double efficiency = core::compute_efficiency(plan);
  plan.workload.flops_per_sample =
      exchange_s * plan.cluster.device.flops * efficiency / plan.training.batch_per_worker;
  return plan.cluster.device.flops * efficiency;  // the executed FLOPs' rate
}

// On CPUs both engines leave compute out; on GPUs the device is one a (calibrated) topology
// describes, so compute stays in. Returns an exit code when the GPUs cannot run the plan, else -1.
int choose_backend(const ValidateArgs& args, core::Plan& plan, exec::ExecOptions& options) {
  options.baselines = false;
  if (args.backend != "cuda") {
    plan.compute_left_out = true;  // model-parallel plans: their compute comes from the shapes
    plan.workload.flops_per_sample = 1;  // communication only, in both engines
    plan.workload.layers.clear();
    options.compute_scale = 0;
    return -1;
  }
  if (args.cluster != "local")
    throw core::InputError("", 0, "--cluster", "--backend cuda runs on this machine's GPUs");
  std::string why = gpus_unavailable(plan, true);
  if (!why.empty()) {
    std::fprintf(stderr, "error: --backend cuda cannot run here: %s\n", why.c_str());
    return 1;
  }
  options.backend = exec::Backend::kCuda;
  options.compute_scale = 1;
  return -1;
}

// Prints predicted against measured and the judged step's error; writes the JSON when asked.
// Exit 0 within the tolerance, 1 outside it or when a sum was wrong.
int judge(const ValidateArgs& args, const core::Plan& plan, const core::RunResult& predicted,
          const core::RunResult& measured) {
  // Synchronous steps are alike: the median step of each is robust to one step disturbed by the
  // shared machine. A parameter-server training program's steps are not (a step ends when its
  // slowest worker is through it, and workers drift apart): the mean over the whole run.
  bool alike = !core::uses_ps_training(plan);
  double predicted_step = core::judged_step(predicted, alike),
         measured_step = core::judged_step(measured, alike);
  double error = core::relative_error(predicted_step, measured_step);
  print_comparison(stdout, predicted, measured);
  // The table above shows the mean step; this line names the step it judges (median or mean).
  std::string over = alike ? "median of " + std::to_string(measured.steps.size()) + " steps each"
                           : "mean over the run";
  std::printf(
      "step time: %s step predicted %.3f ms, measured %.3f ms (%s): error %+.1f%%, "
      "tolerance %.1f%%\n",
      alike ? "median" : "mean", predicted_step * 1e3, measured_step * 1e3, over.c_str(),
      error * 100, args.tolerance * 100);
  if (!args.output.empty()) {
    // Both stamped with the plan, so that `compare` takes them later.
    core::RunResult p = predicted, m = measured;
    p.stamp = m.stamp = core::plan_stamp(plan);
    nlohmann::json out = {{"predicted", core::to_json(p)},
                          {"measured", core::to_json(m)},
                          {"step_time_error", error},
                          {"tolerance", args.tolerance}};
    core::write_file_atomic(args.output, out.dump(2) + "\n");
  }
  if (measured.wrong > 0) {
    std::fprintf(stderr, "error: %ld elements differ from the exact sum\n", measured.wrong);
    return 1;
  }
  return std::fabs(error) <= args.tolerance ? 0 : 1;
}

}  // namespace

Action add_validate_command(CLI::App& app) {
  auto args = std::make_shared<ValidateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "validate",
      "Simulate a plan, run it for real, compare: exits 1 when the step-time error passes the "
      "tolerance.\n"
      "On CPUs it checks the communication: compute is left out of both (this CPU is not the "
      "device the\n"
      "topology describes); on an emulated cluster the topology's rates are what tc enforces. "
      "With\n"
      "--backend cuda the step includes compute on this machine's GPUs.\n"
      "Example: scaleout cluster up topologies/emulated-4x200mbit.yaml && "
      "scaleout validate experiments/emulated/ring-4.yaml --cluster emulated");
  add_plan_options(cmd, args->plan);
  cmd->add_option("--cluster", args->cluster, "local or emulated")
      ->check(CLI::IsMember({"local", "emulated"}));
  cmd->add_option("--tolerance", args->tolerance,
                  "largest relative step-time error accepted (default 0.10)")
      ->check(finite_range(0.0, 10.0));
  cmd->add_option("-o,--output", args->output, "write {predicted, measured, error} as JSON here")
      ->check(non_empty_path());
  cmd->add_option("--backend", args->backend,
                  "cpu (Gloo ranks, communication only) or cuda (this machine's GPUs, compute "
                  "included: give it a topology from calibrate --backend cuda)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  return [args]() {
    core::Plan plan = load_plan_args(args->plan);
    bool gpu = args->backend == "cuda";
    exec::ExecOptions options;
    int refused = choose_backend(*args, plan, options);
    if (refused >= 0) return refused;
    if (args->cluster == "emulated") {
      use_emulated_cluster(options, &plan);
    }
    core::RunResult predicted = sim::simulate(plan);
    if (plan.training.overlap && !gpu) {
      options.emulated_device_flops = size_compute_to_exchange(plan, predicted.phases.comm_s);
      options.compute_scale = 1;
      predicted = sim::simulate(plan);
    }
    // A transfer may wait for a few steps of the others (a PS worker for its turn at the server).
    options.timeout = std::max(
        options.timeout, std::chrono::milliseconds(static_cast<long>(5e3 * predicted.step_time_s)));
    core::RunResult measured;
    try {
      measured = exec::run_local(plan, options);
    } catch (const exec::RunFailed& e) {
      std::fprintf(stderr, "error: the run failed: %s\n", e.what());
      return 1;
    }
    if (plan.compute_left_out)
      std::printf("compute left out of both sides: on CPUs validate times the communication\n");
    return judge(*args, plan, predicted, measured);
  };
}

}  // namespace scaleout::cli

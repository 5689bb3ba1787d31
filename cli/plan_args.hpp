// Options shared by the commands that take a plan: the file and its command-line overrides, and
// the emulated cluster a run may use.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "core/plan/plan.hpp"
#include "exec/local_run.hpp"

namespace scaleout::cli {

struct PlanArgs {
  std::string plan;
  int workers = 0;
  std::string strategy;
};

// Adds PLAN, --workers and --strategy to `cmd`.
void add_plan_options(CLI::App* cmd, PlanArgs& args);
// Checks for options: a file name that is not empty (`-o ""` would write nowhere), and a whole
// number from 1 to INT_MAX whose range error prints that range, not DBL_MAX's 300 digits.
CLI::Validator non_empty_path();
// An input file: as given when it exists (or is absolute), else the bundled file of that name
// ("experiments/quickstart.yaml" from any directory, core/files/bundled_data.hpp); empty is
// refused.
CLI::Validator bundled_input();
CLI::Validator positive_int();
CLI::Validator positive_number();  // finite and greater than 0
// A number in [min_value, max_value]; NaN is refused (CLI::Range lets it through).
CLI::Validator finite_range(double min_value, double max_value);
// Prints the plan's deprecation lines on stderr ("warning: file:line: field ...").
void print_plan_warnings(const core::Plan& plan);
// Loads the plan with the overrides. Throws core::InputError naming the file, line and field.
core::Plan load_plan_args(const PlanArgs& args);
// Points `options` at the emulated cluster that is up; throws core::InputError when none is.
// Runs on the emulated cluster that is up; with `plan`, refuses (InputError naming both topologies)
// when the plan's topology is not the one the cluster emulates.
void use_emulated_cluster(exec::ExecOptions& options, const core::Plan* plan = nullptr);

// --backend cuda for a plan whose ranks all start here (`local`) or one per process: exit 2 through
// InputError when the build has no CUDA, else why this machine cannot run it ("" when it can).
// GPU ranks are the workers, and a synchronous PS's servers (a PS training program's servers
// are CPU processes).
std::string gpus_unavailable(const core::Plan& plan, bool local);

}  // namespace scaleout::cli

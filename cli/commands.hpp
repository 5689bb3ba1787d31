// The `scaleout` subcommands. Each registers its options on the CLI11 app and returns the action
// to run once parsing succeeded.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace scaleout::cli {

using Action = std::function<int()>;

Action add_simulate_command(CLI::App& app);
Action add_sweep_command(CLI::App& app);
Action add_run_command(CLI::App& app);
Action add_compare_command(CLI::App& app);
Action add_cluster_command(CLI::App& app);
Action add_validate_command(CLI::App& app);
Action add_calibrate_command(CLI::App& app);
Action add_plan_command(CLI::App& app);
Action add_merge_command(CLI::App& app);
Action add_study_command(CLI::App& app);
Action add_devices_command(CLI::App& app);
Action add_import_command(CLI::App& app);
Action add_export_command(CLI::App& app);
Action add_import_log_command(CLI::App& app);

}  // namespace scaleout::cli

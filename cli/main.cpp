// scaleout: predict how deep-learning training scales on a cluster.
// Exit codes: 0 done, 1 the run failed, 2 the input was wrong.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "cli/commands.hpp"
#include "core/files/bundled_data.hpp"
#include "core/files/temp_files.hpp"
#include "core/plan/input_error.hpp"
#include "exec/cluster_state.hpp"

namespace {

// What the environment tells the libraries: where the bundled files are, where the emulated
// cluster's state file is (the libraries read no variables of their own).
void pass_on_environment() {
  if (const char* dir = std::getenv("SCALEOUT_DATA_DIR"); dir && *dir)
    scaleout::core::set_bundled_data_dir(dir);
  if (const char* file = std::getenv("SCALEOUT_CLUSTER_STATE"); file && *file)
    scaleout::exec::ClusterState::set_path(file);
}

}  // namespace

int main(int argc, char** argv) {
  pass_on_environment();
  CLI::App app{
      "scaleout: predict how deep-learning training scales, before booking the cluster.\n"
      "Example: scaleout sweep experiments/quickstart.yaml --workers 8:1024:x2 "
      "--strategies ring,torus2d,ps -o sweep.csv"};
  app.set_version_flag("--version", std::string("scaleout ") + SCALEOUT_VERSION);
  app.require_subcommand(1);
  scaleout::cli::Action simulate = scaleout::cli::add_simulate_command(app);
  scaleout::cli::Action sweep = scaleout::cli::add_sweep_command(app);
  scaleout::cli::Action run = scaleout::cli::add_run_command(app);
  scaleout::cli::Action compare = scaleout::cli::add_compare_command(app);
  scaleout::cli::Action cluster = scaleout::cli::add_cluster_command(app);
  scaleout::cli::Action validate = scaleout::cli::add_validate_command(app);
  scaleout::cli::Action calibrate = scaleout::cli::add_calibrate_command(app);
  scaleout::cli::Action plan = scaleout::cli::add_plan_command(app);
  scaleout::cli::Action merge = scaleout::cli::add_merge_command(app);
  scaleout::cli::Action study = scaleout::cli::add_study_command(app);
  scaleout::cli::Action devices = scaleout::cli::add_devices_command(app);
  scaleout::cli::Action import_model = scaleout::cli::add_import_command(app);
  scaleout::cli::Action export_plan = scaleout::cli::add_export_command(app);
  scaleout::cli::Action import_log = scaleout::cli::add_import_log_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; every other parse error is wrong input.
    return app.exit(e) == 0 ? 0 : 2;
  }
  // Temporary files and the processes writing them go when the command is interrupted.
  scaleout::core::install_temp_cleanup();
  try {
    if (app.got_subcommand("simulate")) return simulate();
    if (app.got_subcommand("sweep")) return sweep();
    if (app.got_subcommand("run")) return run();
    if (app.got_subcommand("compare")) return compare();
    if (app.got_subcommand("cluster")) return cluster();
    if (app.got_subcommand("validate")) return validate();
    if (app.got_subcommand("calibrate")) return calibrate();
    if (app.got_subcommand("plan")) return plan();
    if (app.got_subcommand("merge")) return merge();
    if (app.got_subcommand("study")) return study();
    if (app.got_subcommand("devices")) return devices();
    if (app.got_subcommand("import")) return import_model();
    if (app.got_subcommand("export")) return export_plan();
    if (app.got_subcommand("import-log")) return import_log();
  } catch (const scaleout::core::InputError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 1;
}

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "cli/report.hpp"
#include "core/plan/input_error.hpp"
#include "core/results/compare.hpp"

namespace scaleout::cli {

namespace {

core::RunResult load_result(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw core::InputError(path, 0, "", "cannot open file (does it exist?)");
  try {
    return core::result_from_json(nlohmann::json::parse(in));
  } catch (const nlohmann::json::exception& e) {
    throw core::InputError(path, 0, "", std::string("not a result JSON: ") + e.what());
  } catch (const std::runtime_error& e) {
    throw core::InputError(path, 0, "", e.what());
  }
}

}  // namespace

Action add_compare_command(CLI::App& app) {
  auto predicted = std::make_shared<std::string>();
  auto measured = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("compare",
                                     "Predicted against measured, number by number.\n"
                                     "Example: scaleout compare predicted.json measured.json");
  cmd->add_option("predicted", *predicted, "result JSON of simulate")->required();
  cmd->add_option("measured", *measured, "result JSON of run")->required();
  cmd->add_flag("--json", *json, "print the comparison as JSON");
  auto force = std::make_shared<bool>(false);
  cmd->add_flag("--force", *force,
                "compare results of different plans (another strategy, worker count, cluster)");
  return [=]() {
    core::RunResult p = load_result(*predicted), m = load_result(*measured);
    if (!p.stamp || !m.stamp) {
      std::string unstamped = !p.stamp && !m.stamp ? *predicted + " and " + *measured
                              : !p.stamp           ? *predicted
                                                   : *measured;
      std::fprintf(stderr,
                   "warning: %s has no plan stamp (written by another tool, or before results had "
                   "one): not checked "
                   "that both results come from the same plan\n",
                   unstamped.c_str());
    } else if (std::string diff = core::stamp_difference(*p.stamp, *m.stamp); !diff.empty()) {
      if (!*force)
        throw core::InputError(*measured, 0, "plan_stamp",
                               "a result of another plan than " + *predicted + "'s: " + diff +
                                   " (--force compares them anyway)");
      std::fprintf(stderr, "warning: comparing results of different plans (--force): %s\n",
                   diff.c_str());
    }
    if (*json) {
      nlohmann::json out = core::comparison_json(core::compare_results(p, m));
      out["predicted"] = *predicted;
      out["measured"] = *measured;
      std::printf("%s\n", out.dump(2).c_str());
    } else {
      print_comparison(stdout, p, m);
    }
    return 0;
  };
}

}  // namespace scaleout::cli

// `scaleout study`: published scaling results against scaleout's predictions for the same
// clusters. Exit 0 when every held prediction is within its tolerance, 1 when one is not, 2 on
// bad input.
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "cli/plan_args.hpp"
#include "core/files/atomic_file.hpp"
#include "explore/study.hpp"

namespace scaleout::cli {

namespace {

struct StudyArgs {
  std::string study;
  std::string output;
  std::string engine;
  bool json = false;
  bool quiet = false;
};

int run_study_command(const StudyArgs& a) {
  sim::Study study = sim::load_study(a.study);
  std::optional<sim::Engine> engine;
  if (!a.engine.empty()) engine = sim::parse_engine(a.engine, "--engine");
  bool progress = !a.quiet && isatty(STDERR_FILENO);
  sim::StudyOutcome outcome = sim::run_study(study, engine, [&](std::size_t done, std::size_t n) {
    if (progress) std::fprintf(stderr, "\r%zu of %zu cases", done, n);
  });
  if (progress) std::fprintf(stderr, "\n");
  std::string markdown = sim::study_markdown(outcome);
  if (!a.output.empty()) core::write_file_atomic(a.output, markdown);
  std::printf("%s\n", a.json ? sim::study_json(outcome).c_str() : markdown.c_str());
  return outcome.passes() ? 0 : 1;
}

}  // namespace

Action add_study_command(CLI::App& app) {
  auto args = std::make_shared<StudyArgs>();
  CLI::App* cmd = app.add_subcommand(
      "study",
      "Published scaling results against the predictions for the same clusters: one row per\n"
      "published number, with the error and the study's tolerance. Exit 0: every held prediction\n"
      "within it (known gaps and calibration rows are reported, not held), 1: not.\n"
      "Example: scaleout study experiments/goyal17/study.yaml -o experiments/goyal17/report.md");
  cmd->add_option("study", args->study, "study YAML file")->required()->transform(bundled_input());
  cmd->add_option("-o,--output", args->output, "write the markdown report here");
  cmd->add_option("--engine", args->engine, "sim | analytic (default: the study's)");
  cmd->add_flag("--json", args->json, "print the outcome as JSON instead of markdown");
  cmd->add_flag("--quiet", args->quiet, "no progress on the terminal");
  return [args]() { return run_study_command(*args); };
}

}  // namespace scaleout::cli

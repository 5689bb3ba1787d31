// scaleout-gui: the window over a plan, or headless pictures of scaling curves.
// Exit codes: 0 done, 1 a picture could not be written, 2 the input was wrong.
#include <QApplication>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/files/bundled_data.hpp"
#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"
#include "explore/study.hpp"
#include "gui/bundled_data.hpp"
#include "gui/main_window.hpp"
#include "gui/render.hpp"
#include "gui/sweep_csv.hpp"

namespace {

const char* kUsage =
    "usage: scaleout-gui [PLAN]           the window (default: experiments/quickstart.yaml)\n"
    "       scaleout-gui --render SWEEP.csv -o CHART.png   a sweep's charts, no window\n"
    "       scaleout-gui --render-plan PLAN -o CHART.png   a plan's analytic charts, no window\n"
    "                                                      (CHART.svg: an SVG drawing)\n"
    "       scaleout-gui --render-study STUDY -o CHART.png a study's predictions over the\n"
    "                                                      published numbers, no window\n"
    "example: scaleout-gui --render sweep.csv -o scaling.png\n";

struct Args {
  std::string plan, render_csv, render_plan, render_study, output;
};

bool parse(int argc, char** argv, Args& a) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](std::string& into) {
      if (i + 1 >= argc) return false;
      into = argv[++i];
      return true;
    };
    if (arg == "--render") {
      if (!value(a.render_csv)) return false;
    } else if (arg == "--render-plan") {
      if (!value(a.render_plan)) return false;
    } else if (arg == "--render-study") {
      if (!value(a.render_study)) return false;
    } else if (arg == "-o" || arg == "--output") {
      if (!value(a.output)) return false;
    } else if (!arg.empty() && arg[0] != '-' && a.plan.empty()) {
      a.plan = arg;
    } else {
      return false;
    }
  }
  int renders = !a.render_csv.empty() + !a.render_plan.empty() + !a.render_study.empty();
  if (renders > 1) return false;
  bool render = renders == 1;
  return render ? !a.output.empty() && a.plan.empty() : a.output.empty();
}

std::unique_ptr<QWidget> rendered(const Args& a) {
  using namespace scaleout;
  if (!a.render_study.empty())
    return gui::study_page(sim::run_study(sim::load_study(a.render_study)));
  if (!a.render_csv.empty()) return gui::curves_page(gui::read_sweep_csv(a.render_csv));
  core::Plan plan = core::load_plan(a.render_plan);
  // A model-parallel plan's step by kind at its own size, where that is one of the sizes.
  std::vector<int> sizes = gui::fitting_sizes(plan);
  bool own = plan.parallelism &&
             std::find(sizes.begin(), sizes.end(), plan.training.workers) != sizes.end();
  return gui::curves_page(gui::compute_curves(plan, sizes), own ? plan.training.workers : 0, &plan);
}

// PNG, or SVG when the output's name ends in .svg.
int render(const Args& a) {
  if (!scaleout::gui::save_page(*rendered(a), QString::fromStdString(a.output))) {
    std::fprintf(stderr, "error: cannot write %s\n", a.output.c_str());
    return 1;
  }
  std::printf("wrote %s\n", a.output.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (const char* dir = std::getenv("SCALEOUT_DATA_DIR"); dir && *dir)
    scaleout::core::set_bundled_data_dir(dir);  // the libraries read no variables of their own
  Args args;
  if (argc > 1 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (!parse(argc, argv, args)) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  bool headless = !args.output.empty();
  if (headless && !qEnvironmentVariableIsSet("QT_QPA_PLATFORM"))
    qputenv("QT_QPA_PLATFORM", "offscreen");
  try {
    // Load before any window exists, so a wrong plan is one message on stderr, not a dialog.
    scaleout::core::Plan plan;
    if (!headless)
      plan = scaleout::core::load_plan(
          args.plan.empty() ? scaleout::core::bundled_path("experiments/quickstart.yaml")
                            : args.plan);
    QApplication app(argc, argv);
    if (headless) return render(args);
    scaleout::gui::MainWindow window(plan);
    window.show();
    return app.exec();
  } catch (const scaleout::core::InputError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}

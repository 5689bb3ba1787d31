// Helpers of the GUI tests: the bundled plan, the command line, and reading a window's charts.
#pragma once

#include <QString>
#include <QXYSeries>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/plan/plan.hpp"
#include "gui/chart.hpp"
#include "gui/curves.hpp"
#include "gui/main_window.hpp"
#include "tests/support/command.hpp"

namespace scaleout::gui {

extern const std::string kQuickstart;       // experiments/quickstart.yaml in the source tree
extern const std::filesystem::path kShots;  // where screenshots and artifacts go (build folder)

// Runs the `scaleout` binary with `args`.
testing::Output cli(const std::string& args);
core::Plan quickstart();

// The chart's line series (`lines`) or its dot series.
QList<QXYSeries*> series_of(Chart* chart, bool lines);
// Every point of the throughput chart, by strategy and workers.
std::map<std::pair<std::string, int>, double> throughput_points(MainWindow& w);
// Selects the editor's text and types `text` key by key, as a user would.
void type_into(QWidget* editor, const QString& text);
void expect_relative(double got, double want, double tolerance, const std::string& what);
// The analytic curves `scaleout sweep` writes for `plan_path`, read back from its CSV.
Curves cli_sweep(const std::string& plan_path, const std::filesystem::path& csv);
// The throughput chart against a sweep CSV (9 significant digits: equal within 1e-8).
void expect_chart_equals_csv(MainWindow& w, const Curves& csv);
// Every point of `curves` is on the window's throughput chart within `tolerance` (relative), and
// the chart has no other point. Returns how many points were compared.
std::size_t expect_chart_equals_curves(MainWindow& w, const Curves& curves, double tolerance);
// A "measured" run: the analytic result of ring on 16 workers, 20% slower, as a cpu run.
void write_runs(const std::filesystem::path& predicted, const std::filesystem::path& measured);
// A text replacement in one of the quickstart's files (plan | topology | model).
struct YamlReplace {
  const char* file;
  const char* before;
  const char* after;
};
// The quickstart with its topology and model copied into `dir`, each replacement applied (a
// `before` that is not found fails the test); returns the plan's path.
std::string edited_quickstart(const std::filesystem::path& dir,
                              const std::vector<YamlReplace>& edits);
// The visible texts of every chart in `w` that Qt Charts shortened with an ellipsis, each after
// its chart's title.
QStringList cut_labels(MainWindow& w);
// Points of the window's curves that the simulator computed.
int simulated_points(const MainWindow& w);

}  // namespace scaleout::gui

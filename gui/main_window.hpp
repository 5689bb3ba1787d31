// The main window: the plan panel on the left, the charts in the middle, the planning answer and
// the measured runs on the right. Every valid edit recomputes the analytic curves and redraws.
#pragma once

#include <QMainWindow>
#include <string>
#include <vector>

#include "gui/chart.hpp"
#include "gui/curves.hpp"
#include "gui/measured.hpp"
#include "gui/plan_fields.hpp"
#include "gui/split_search_cache.hpp"

class QComboBox;
class QLabel;
class QMenu;

namespace scaleout::gui {

class AnswerPanel;
class PlanPanel;
class PointTimeline;
class RefineBar;
class SplitTable;
class ResultsDock;
class TimelineWindow;
class TopologyView;

// The analytic warnings of the curves' points, each once (window_extras.cpp).
QStringList curve_warnings(const Curves& curves);

class MainWindow : public QMainWindow {
 public:
  explicit MainWindow(const core::Plan& plan);

  // Loads a plan file; on error leaves the window as it was and returns the message.
  QString open_plan(const QString& path);
  // Lays a result JSON over the curves; on error returns the message.
  QString open_result(const QString& path);
  // Lays several result JSONs over the curves; the status line names the files skipped and why.
  QString open_results(const QStringList& paths);
  // Writes the plan with every edit as YAML; returns what happened.
  QString save_plan_as(const QString& path);
  // The `scaleout sweep` command that writes these curves' numbers: empty while edits are not
  // saved (the command reads the plan file).
  QString cli_command() const;
  // Simulates every point up to kRefineMaxWorkers (refine_job.hpp) on a worker thread; each result
  // replaces its analytic point as it arrives. An edit of the plan cancels it.
  void start_refine();
  // Opens (or brings up) the cluster drawn at the chosen size, its links coloured by the
  // simulated result of the plan's strategy there when there is one.
  TopologyView* show_topology();
  // Opens a Chrome trace (simulated or measured run) in the timeline window; returns what
  // happened.
  QString open_trace(const QString& path);
  // The plan's pipeline schedule as the closed form times it (stages x time, the bubble as gaps),
  // in the timeline window; says why not for a plan without `parallelism:`.
  QString show_pipeline_schedule();
  // The same schedule as SimGrid runs it (every rank a row, the stages' transfers and the groups'
  // collectives sharing the links), simulated on a worker thread like the chosen point's
  // timeline; returns what started, or why not.
  QString simulate_pipeline_schedule();
  TimelineWindow* timeline() const { return timeline_; }
  // Simulates the plan's strategy at the chosen size with a trace on a worker thread and opens
  // it in the timeline window when done (window_extras.cpp).
  void show_point_timeline();
  PointTimeline* point_timeline() const { return point_timeline_; }
  // Writes the cluster drawing at the chosen size as SVG; returns what happened.
  QString export_topology_svg(const QString& path);

  PlanPanel* plan_panel() const { return plan_panel_; }
  AnswerPanel* answer_panel() const { return answer_panel_; }
  LineChart* throughput_chart() const { return throughput_; }
  LineChart* efficiency_chart() const { return efficiency_; }
  BarChart* breakdown_chart() const { return breakdown_; }
  BarChart* memory_chart() const { return memory_; }
  LineChart* goodput_chart() const { return goodput_; }
  SplitTable* split_table() const { return split_table_; }
  QComboBox* breakdown_size() const { return size_; }
  // The PS point's staleness at the chosen size; shown only when the plan's PS is asynchronous.
  HistogramChart* staleness_chart() const { return staleness_; }
  RefineBar* refine_bar() const { return refine_bar_; }
  ResultsDock* results() const { return results_; }
  const Curves& curves() const { return curves_; }
  const std::vector<MeasuredPoint>& measured() const { return measured_; }
  const SplitSearchCache& split_cache() const { return split_cache_; }

 private:
  void build_menus();
  // Open topology/model, the point's timeline, the topology's SVG (window_extras.cpp).
  void add_extra_actions(QMenu* file, QMenu* view);
  void recompute(const WhatIf& w);
  void redraw();
  void redraw_breakdown();
  void redraw_splits();
  void redraw_split_breakdown(int workers);
  void use_split(core::Parallelism split);  // a copy: redrawing refills the table it came from
  void export_chart(Chart* chart, const QString& name);
  void apply_refined(core::StrategyKind strategy, const core::RunResult& r);

  WhatIf what_if_;
  QString saved_path_;  // the file that holds what_if_.plan; empty after an edit
  Curves curves_;
  std::vector<MeasuredPoint> measured_;
  SplitSearchCache split_cache_;  // the charts' split searches, kept across edits of the split
  PlanPanel* plan_panel_ = nullptr;
  AnswerPanel* answer_panel_ = nullptr;
  LineChart* throughput_ = nullptr;
  LineChart* efficiency_ = nullptr;
  BarChart* breakdown_ = nullptr;
  BarChart* memory_ = nullptr;         // shown for a model-parallel plan
  LineChart* goodput_ = nullptr;       // shown for a plan with failure rates
  SplitTable* split_table_ = nullptr;  // the same
  HistogramChart* staleness_ = nullptr;
  QComboBox* size_ = nullptr;
  QLabel* measured_text_ = nullptr;
  RefineBar* refine_bar_ = nullptr;
  ResultsDock* results_ = nullptr;      // the results table under the charts
  TopologyView* topology_ = nullptr;    // its own window, made on first use
  TimelineWindow* timeline_ = nullptr;  // the same
  PointTimeline* point_timeline_ = nullptr;
};

}  // namespace scaleout::gui

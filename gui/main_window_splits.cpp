// The main window's charts of a transformer plan with `parallelism:` by its splits, and loading
// a split the search proposes into the plan (gui/main_window.hpp).
#include <yaml-cpp/yaml.h>

#include <QStatusBar>

#include "core/parallel/pipeline_schedule.hpp"
#include "core/plan/input_error.hpp"
#include "core/plan/plan_variation.hpp"
#include "gui/answer_panel.hpp"
#include "gui/main_window.hpp"
#include "gui/plan_panel.hpp"
#include "gui/split_chart_data.hpp"
#include "gui/split_table.hpp"

namespace scaleout::gui {

// A transformer plan with `parallelism:` is charted by its splits: tokens/s and MFU of the best
// split at each size (the planning panel's search once it ran, else one here) and of the plan's.
void MainWindow::redraw_splits() {
  const core::Plan& plan = what_if_.plan;
  std::vector<sim::SizeBest> best = answer_panel_->split_rows();
  if (best.empty()) best = split_cache_.best_per_size(plan, curves_.workers);
  std::vector<const core::RunResult*> own = own_split_points(plan, curves_);
  LineChartData tokens = split_scaling_data(best, own, curves_.workers, false);
  add_measured_tokens(tokens, measured_, plan.workload.transformer->sequence);
  throughput_->show_data(tokens);
  efficiency_->show_data(split_scaling_data(best, own, curves_.workers, true));
}

// At `workers`: the step by kind of the plan's split and the search's top three, and the table of
// its top ten.
void MainWindow::redraw_split_breakdown(int workers) {
  const core::Plan& plan = what_if_.plan;
  std::vector<const core::RunResult*> own = own_split_points(plan, curves_);
  const core::RunResult* there = nullptr;
  for (std::size_t i = 0; i < curves_.workers.size(); ++i)
    if (curves_.workers[i] == workers) there = own[i];
  std::vector<sim::SplitCandidate> top = split_cache_.top_at(plan, workers, 10);
  std::vector<sim::SplitCandidate> three(top.begin(),
                                         top.begin() + std::min<std::size_t>(3, top.size()));
  breakdown_->show_data(split_breakdown_data(three, there, workers, true));
  split_table_->show_splits(std::move(top), workers);
}

// Loads a split from the table into the plan, as the same edit of its YAML `parallelism:` (the
// framework and anything else written there stay).
void MainWindow::use_split(core::Parallelism split) {
  WhatIf w = what_if_;
  try {
    w.plan = core::plan_with_yaml_edit(w.plan, [&split](YAML::Node& root) {
      YAML::Node p = root["parallelism"];
      p["tensor"] = split.tensor;
      p["pipeline"] = split.pipeline;
      p["microbatch"] = split.microbatch;
      p["schedule"] = core::schedule_name(split.schedule);
      p["virtual_stages"] = split.virtual_stages;
      p["sequence_parallel"] = split.sequence_parallel;
      p["recompute"] = core::recompute_name(split.recompute);
      p["zero"] = split.zero;
      p["expert"] = split.expert;
      p["context"] = split.context;
      p.remove("first_stage_layers");
      p.remove("last_stage_layers");
      if (split.first_stage_layers > 0) p["first_stage_layers"] = split.first_stage_layers;
      if (split.last_stage_layers > 0) p["last_stage_layers"] = split.last_stage_layers;
      p.remove("account_for_embedding_in_pipeline_split");
      p.remove("account_for_loss_in_pipeline_split");
      if (split.embedding_in_split) p["account_for_embedding_in_pipeline_split"] = true;
      if (split.loss_in_split) p["account_for_loss_in_pipeline_split"] = true;
    });
  } catch (const core::InputError& e) {
    statusBar()->showMessage(QString::fromStdString(e.what()));
    return;
  }
  saved_path_.clear();
  plan_panel_->set_what_if(w);
  recompute(w);
  statusBar()->showMessage(
      QString("loaded split: tensor %1 x pipeline %2, micro-batch %3, %4, ZeRO %5")
          .arg(split.tensor)
          .arg(split.pipeline)
          .arg(split.microbatch)
          .arg(core::schedule_name(split.schedule))
          .arg(split.zero));
}

}  // namespace scaleout::gui

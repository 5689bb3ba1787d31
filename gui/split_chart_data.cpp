#include "gui/split_chart_data.hpp"

#include <QString>

#include "core/programs/strategy.hpp"

namespace scaleout::gui {

namespace {

// tp x pp x dp (x ep), short enough for a bar's label.
QString split_grid(const core::ModelParallelOutcome& m) {
  QString s = QString("%1x%2x%3").arg(m.tensor).arg(m.pipeline).arg(m.data);
  if (m.expert > 1) s += QString(" ep%1").arg(m.expert);
  if (m.context > 1) s += QString(" cp%1").arg(m.context);
  return s;
}

QString split_label(const core::ModelParallelOutcome& m) {
  QString s =
      QString("tp%1 pp%2 dp%3 mb%4").arg(m.tensor).arg(m.pipeline).arg(m.data).arg(m.microbatch);
  if (m.expert > 1) s += QString(" ep%1").arg(m.expert);
  if (m.context > 1) s += QString(" cp%1").arg(m.context);
  return s;
}

// A point's hover text: the split, what it reaches, its memory and, for the search's, its
// bottleneck.
QString split_tip(const char* who, int workers, const core::RunResult& r,
                  const std::string& bottleneck) {
  const core::ModelParallelOutcome& m = *r.model_parallel;
  QString tip = QString(
                    "%1 at %2 workers: %3, %4, recompute %5, ZeRO %6\n%7 tokens/s, MFU %8 %, "
                    "%9 GB a device")
                    .arg(who)
                    .arg(workers)
                    .arg(split_label(m))
                    .arg(QString::fromStdString(m.schedule))
                    .arg(QString::fromStdString(m.recompute))
                    .arg(m.zero)
                    .arg(m.tokens_per_s, 0, 'f', 0)
                    .arg(100 * m.mfu, 0, 'f', 1)
                    .arg(m.memory.total / 1e9, 0, 'f', 1);
  if (!bottleneck.empty()) tip += "\nbottleneck: " + QString::fromStdString(bottleneck);
  return tip;
}

double value(const core::RunResult& r, bool mfu) {
  return mfu ? 100 * r.model_parallel->mfu : r.model_parallel->tokens_per_s;
}

}  // namespace

std::vector<const core::RunResult*> own_split_points(const core::Plan& plan, const Curves& curves) {
  std::vector<const core::RunResult*> out;
  std::string strategy = core::strategy_name(plan.strategy.kind);
  for (int n : curves.workers) {
    const core::RunResult* r = find_point(curves, strategy, n);
    out.push_back(r && r->model_parallel ? r : nullptr);
  }
  return out;
}

LineChartData split_scaling_data(const std::vector<sim::SizeBest>& best,
                                 const std::vector<const core::RunResult*>& own,
                                 const std::vector<int>& workers, bool mfu) {
  LineChartData d;
  d.title = mfu ? "Model FLOPs utilization" : "Tokens per second";
  d.subtitle = "the best split at each size (the search's) and the plan's own split";
  d.x_title = "workers";
  d.y_title = mfu ? "MFU (%)" : "tokens/s";
  d.log10_y = !mfu;
  if (mfu) d.y_max = 100;
  SeriesData searched{"best split", {}, {}}, written{"plan's split", {}, {}};
  for (const auto& row : best) {
    if (!row.best) continue;
    searched.points.append(QPointF(row.workers, value(row.best->result, mfu)));
    searched.tips.append(
        split_tip("best split", row.workers, row.best->result, row.best->bottleneck));
  }
  for (std::size_t i = 0; i < own.size() && i < workers.size(); ++i) {
    if (!own[i]) continue;
    written.points.append(QPointF(workers[i], value(*own[i], mfu)));
    written.tips.append(split_tip("plan's split", workers[i], *own[i], ""));
  }
  d.lines = {searched, written};
  return d;
}

BarChartData split_breakdown_data(const std::vector<sim::SplitCandidate>& top,
                                  const core::RunResult* own, int workers, bool numbered) {
  BarChartData d;
  d.title = numbered ? QString("Step by kind at %1 workers").arg(workers)
                     : QString("Step by kind at %1 workers (tp x pp x dp)").arg(workers);
  d.y_title = "ms per step";
  d.subtitle = "stacked: what the step waits on; overlapped transfers in the compute tips";
  // Short names keep the legend whole in a narrow window; each bar part's tip says it in full.
  struct Part {
    const char* name;
    const char* meaning;
    double (*of)(const core::RunResult&);
  };
  static const Part parts[] = {
      {"compute", "compute", [](const core::RunResult& r) { return r.phases.compute_s; }},
      {"tensor", "tensor-group all-reduces on the busiest stage",
       [](const core::RunResult& r) { return r.model_parallel->tensor_comm_s; }},
      {"expert", "expert-parallel all-to-alls on the busiest stage",
       [](const core::RunResult& r) { return r.model_parallel->expert_comm_s; }},
      {"context", "context groups' key-value exchanges the attention did not hide",
       [](const core::RunResult& r) { return r.model_parallel->context_comm_s; }},
      {"data", "the data group's gradient exchange (and ZeRO's gathers)",
       [](const core::RunResult& r) { return r.model_parallel->data_comm_s; }},
      {"bubble", "pipeline bubble: the busiest stage's idle time",
       [](const core::RunResult& r) { return r.model_parallel->bubble_s; }},
  };
  std::vector<const core::RunResult*> bars;
  if (own) {
    bars.push_back(own);
    d.categories.append(numbered ? QString("plan") : "plan " + split_grid(*own->model_parallel));
  }
  for (std::size_t i = 0; i < top.size(); ++i) {
    bars.push_back(&top[i].result);
    QString number = QString("#%1").arg(i + 1);
    d.categories.append(numbered ? number
                                 : number + " " + split_grid(*top[i].result.model_parallel));
  }
  for (const Part& part : parts) {
    SeriesData s{part.name, {}, {}};
    bool any = false;
    for (std::size_t i = 0; i < bars.size(); ++i) {
      double ms = part.of(*bars[i]) * 1e3;
      any = any || ms > 0;
      s.points.append(QPointF(static_cast<double>(i), ms));
      QString tip = QString("%1: %2, %3 ms of %4 ms")
                        .arg(d.categories[static_cast<int>(i)])
                        .arg(part.meaning)
                        .arg(ms, 0, 'f', 1)
                        .arg(bars[i]->step_time_s * 1e3, 0, 'f', 1);
      if (std::string(part.name) == "compute")  // what runs hidden beside it, not stacked
        tip += QString("\npipeline transfers in flight beside it (overlapped, not stacked): %1 ms")
                   .arg(bars[i]->model_parallel->pipeline_comm_s * 1e3, 0, 'f', 1);
      s.tips.append(tip);
    }
    if (any || std::string(part.name) == "compute") d.stacks.append(s);
  }
  return d;
}

void add_measured_tokens(LineChartData& tokens, const std::vector<MeasuredPoint>& measured,
                         int sequence) {
  for (const auto& m : measured) {
    const core::RunResult& r = m.measured;
    SeriesData s{QString::fromStdString(r.strategy + " measured (" + r.engine + ")"), {}, {}};
    s.points.append(QPointF(r.workers, r.throughput_samples_per_s * sequence));
    s.tips.append(QString("%1\nmeasured %2 tokens/s, predicted %3\nerror %4 %")
                      .arg(QString::fromStdString(m.file))
                      .arg(r.throughput_samples_per_s * sequence, 0, 'f', 0)
                      .arg(m.predicted.throughput_samples_per_s * sequence, 0, 'f', 0)
                      .arg(m.throughput_error * 100, 0, 'f', 1));
    tokens.measured.append(s);
  }
  if (!measured.empty()) tokens.subtitle += "; large dots measured";
}

bool charts_splits(const core::Plan& plan) {
  return plan.parallelism.has_value() && plan.workload.transformer.has_value();
}

}  // namespace scaleout::gui

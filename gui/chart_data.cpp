#include "gui/chart_data.hpp"

#include <algorithm>
#include <cmath>

#include "core/model/model_memory.hpp"

namespace scaleout::gui {

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

QString point_tip(const core::RunResult& r) {
  return QString(
             "%1, %2 workers\nthroughput %3 samples/s\nstep time %4 ms\nscaling efficiency %5 %\n"
             "compute %6 ms, exposed communication %7 ms")
      .arg(q(r.strategy))
      .arg(r.workers)
      .arg(r.throughput_samples_per_s, 0, 'f', 1)
      .arg(r.step_time_s * 1e3, 0, 'f', 3)
      .arg(r.scaling_efficiency * 100, 0, 'f', 2)
      .arg(r.phases.compute_s * 1e3, 0, 'f', 3)
      .arg(r.phases.exposed_comm_s * 1e3, 0, 'f', 3);
}

// Ringed points: those the simulator computed ("Refine with SimGrid").
SeriesData refined_points(const Curves& curves, bool efficiency) {
  SeriesData s{"SimGrid", {}, {}};
  for (const auto& c : curves.curves)
    for (const auto& r : c.points)
      if (r.engine == "sim") {
        s.points.append(QPointF(
            r.workers, efficiency ? r.scaling_efficiency * 100 : r.throughput_samples_per_s));
        s.tips.append("SimGrid: " + point_tip(r));
      }
  return s;
}

}  // namespace

LineChartData throughput_data(const Curves& curves, const std::vector<MeasuredPoint>& measured) {
  LineChartData d;
  d.title = "Throughput";
  d.subtitle = "analytic; ideal scaling is a straight line here";
  d.x_title = "workers";
  d.y_title = "samples/s";
  d.y_format = "%.0f";
  d.log10_y = true;
  for (const auto& c : curves.curves) {
    SeriesData s{q(c.strategy), {}, {}};
    for (const auto& r : c.points) {
      s.points.append(QPointF(r.workers, r.throughput_samples_per_s));
      s.tips.append(point_tip(r));
    }
    d.lines.append(s);
  }
  SeriesData sim = refined_points(curves, false);
  if (!sim.points.isEmpty()) {
    d.refined.append(sim);
    d.subtitle = "analytic, ringed points simulated; ideal scaling is a straight line here";
  }
  for (const auto& m : measured) {
    const auto& r = m.measured;
    SeriesData s{q(r.strategy + " measured (" + r.engine + ")"), {}, {}};
    s.points.append(QPointF(r.workers, r.throughput_samples_per_s));
    s.tips.append(QString("%1\nmeasured %2 samples/s, predicted %3\nerror %4 %")
                      .arg(q(m.file))
                      .arg(r.throughput_samples_per_s, 0, 'f', 1)
                      .arg(m.predicted.throughput_samples_per_s, 0, 'f', 1)
                      .arg(m.throughput_error * 100, 0, 'f', 1));
    d.measured.append(s);
  }
  // The dots take their strategy's colour; a legend entry each would crowd out the curves' names.
  if (!measured.empty()) d.subtitle += "; large dots measured";
  return d;
}

LineChartData efficiency_data(const Curves& curves) {
  LineChartData d;
  d.title = "Scaling efficiency";
  d.x_title = "workers";
  d.y_title = "efficiency (%)";
  d.y_format = "%.0f";
  for (const auto& c : curves.curves) {
    SeriesData s{q(c.strategy), {}, {}};
    for (const auto& r : c.points) {
      s.points.append(QPointF(r.workers, r.scaling_efficiency * 100));
      s.tips.append(point_tip(r));
    }
    d.lines.append(s);
  }
  d.y_max = 100;
  SeriesData sim = refined_points(curves, true);
  if (!sim.points.isEmpty()) d.refined.append(sim);
  int number = 0;
  QStringList notes;
  for (const auto& x : find_crossovers(curves)) {
    QString label = QString::number(++number);
    QString text = QString("%1 overtakes %2 at ~%3 workers")
                       .arg(q(x.second), q(x.first))
                       .arg(std::lround(x.workers));
    d.markers.append({QPointF(x.workers, x.efficiency * 100), label, text});
    notes << label + ": " + text;
  }
  d.subtitle = notes.isEmpty() ? "no crossovers" : "crossovers " + notes.join(", ");
  return d;
}

BarChartData breakdown_data(const Curves& curves, int workers) {
  BarChartData d;
  d.title = QString("Step time at %1 workers").arg(workers);
  d.y_title = "ms per step";
  SeriesData compute{"compute", {}, {}}, exposed{"exposed communication", {}, {}};
  SeriesData bubble{"pipeline bubble", {}, {}};  // model-parallel plans
  for (const auto& c : curves.curves) {
    const core::RunResult* r = find_point(curves, c.strategy, workers);
    if (!r) continue;
    int i = static_cast<int>(d.categories.size());
    d.categories.append(q(c.strategy).replace("_", "<br>"));  // axis labels take HTML
    double idle = r->model_parallel ? r->model_parallel->bubble_s : 0;
    double comp = r->step_time_s - r->phases.exposed_comm_s - idle;  // the unhidden compute
    compute.points.append(QPointF(i, comp * 1e3));
    bubble.points.append(QPointF(i, idle * 1e3));
    bubble.tips.append(
        QString("%1: pipeline bubble %2 ms").arg(q(c.strategy)).arg(idle * 1e3, 0, 'f', 3));
    exposed.points.append(QPointF(i, r->phases.exposed_comm_s * 1e3));
    compute.tips.append(QString("%1: compute %2 ms").arg(q(c.strategy)).arg(comp * 1e3, 0, 'f', 3));
    exposed.tips.append(QString("%1: exposed communication %2 ms (all communication %3 ms)")
                            .arg(q(c.strategy))
                            .arg(r->phases.exposed_comm_s * 1e3, 0, 'f', 3)
                            .arg(r->phases.comm_s * 1e3, 0, 'f', 3));
  }
  d.stacks = {compute, exposed};
  bool pipelined = std::any_of(bubble.points.begin(), bubble.points.end(),
                               [](const QPointF& p) { return p.y() > 0; });
  if (pipelined) d.stacks.append(bubble);
  return d;
}

LineChartData crossover_data(const sim::CrossoverOutcome& x) {
  LineChartData d = efficiency_data(x.curves);
  d.title = "Scaling efficiency: " + QString::fromStdString(x.sweep.name);
  return d;
}

BarChartData study_data(const sim::StudyOutcome& o) {
  BarChartData d;
  d.title = q(o.study.title);
  d.y_title = "predicted / published";
  // One stack per kind of row, each row's bar in exactly one of them (zero in the others).
  std::vector<SeriesData> kinds = {
      {"held to a tolerance", {}, {}}, {"known gap", {}, {}}, {"calibration (an input)", {}, {}}};
  for (const auto& c : o.cases) {
    const sim::StudyCase& s = c.study_case;
    int i = static_cast<int>(d.categories.size());
    d.categories.append(QString::number(i + 1));  // the report's rows, in order
    double ratio = s.published != 0 ? c.predicted / s.published : 0;
    QString tip = QString("%1: %2 %3 predicted, %4 published (%5)")
                      .arg(q(s.name), q(sim::metric_name(s.metric)))
                      .arg(c.predicted, 0, 'g', 4)
                      .arg(s.published, 0, 'g', 4)
                      .arg(!c.predicts() ? "calibration"
                           : c.within    ? "within"
                                         : "outside");
    std::size_t kind = !c.predicts() ? 2 : s.held ? 0 : 1;
    for (std::size_t k = 0; k < kinds.size(); ++k) {
      kinds[k].points.append(QPointF(i, k == kind ? ratio : 0));
      kinds[k].tips.append(tip);
    }
  }
  // A kind no row has is left out of the legend.
  for (auto& k : kinds)
    if (std::any_of(k.points.begin(), k.points.end(), [](QPointF p) { return p.y() != 0; }))
      d.stacks.push_back(k);
  d.limit = 1;
  d.limit_name = "published";
  return d;
}

BarChartData memory_data(const core::Plan& plan) {
  BarChartData d;
  d.x_title = "pipeline stage";
  d.y_title = "GB per device";
  if (!plan.parallelism || !plan.workload.transformer) return d;
  SeriesData parts[4] = {{"parameters", {}, {}},
                         {"gradients", {}, {}},
                         {"optimizer", {}, {}},
                         {"activations", {}, {}}};
  core::MemoryBreakdown worst = core::worst_stage_memory(plan);
  for (int s = 0; s < plan.parallelism->pipeline; ++s) {
    core::MemoryBreakdown m = core::stage_memory(plan, s);
    d.categories.append(QString::number(s));
    double bytes[4] = {m.parameters, m.gradients, m.optimizer, m.activations};
    for (int k = 0; k < 4; ++k) {
      parts[k].points.append(QPointF(s, bytes[k] / 1e9));
      parts[k].tips.append(QString("stage %1: %2 %3 GB of %4 GB")
                               .arg(s)
                               .arg(parts[k].name)
                               .arg(bytes[k] / 1e9, 0, 'f', 2)
                               .arg(m.total / 1e9, 0, 'f', 2));
    }
  }
  d.stacks = {parts[0], parts[1], parts[2], parts[3]};
  d.limit = worst.capacity / 1e9;
  d.limit_name = QString("%1 GB").arg(d.limit, 0, 'f', 0);  // short: the legend is narrow
  d.title = "Memory per device";
  d.subtitle =
      QString("%1 GB at most (stage %2)").arg(worst.total / 1e9, 0, 'f', 1).arg(worst.stage);
  if (worst.capacity > 0 && worst.total > worst.capacity) d.subtitle += " - does not fit";
  return d;
}

HistogramData staleness_data(const core::RunResult& r) {
  HistogramData d;
  const core::Staleness& st = r.staleness;
  d.title = QString("Staleness, %1 at %2 workers").arg(q(r.strategy)).arg(r.workers);
  d.subtitle = QString("mean %1, p50 %2, p99 %3, max %4<br>gradients applied %5, dropped %6")
                   .arg(st.mean, 0, 'f', 2)
                   .arg(st.p50)
                   .arg(st.p99)
                   .arg(st.max)
                   .arg(r.gradients.applied)
                   .arg(r.gradients.dropped);
  d.x_title = "staleness (updates since the pull)";
  d.y_title = "gradients applied";
  long total = 0;
  for (long c : st.histogram) total += c;
  for (std::size_t s = 0; s < st.histogram.size(); ++s) {
    long c = st.histogram[s];
    d.bins.append(QString::number(s));
    d.counts.append(static_cast<double>(c));
    d.tips.append(QString("staleness %1: %2 gradients (%3 % of %4)")
                      .arg(s)
                      .arg(c)
                      .arg(total > 0 ? 100.0 * c / total : 0.0, 0, 'f', 2)
                      .arg(total));
  }
  if (d.counts.isEmpty())
    d.empty_text = QString(
                       "The %1 result has no histogram: the closed form gives the mean only. "
                       "Refine with SimGrid for the distribution.")
                       .arg(q(r.engine));
  return d;
}

}  // namespace scaleout::gui

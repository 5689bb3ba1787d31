#include "gui/goodput_chart_data.hpp"

#include <algorithm>

#include "core/results/duration_text.hpp"

namespace scaleout::gui {

namespace {

QString duration(double s) { return QString::fromStdString(core::duration_text(s)); }

QString goodput_tip(const core::RunResult& r) {
  const core::ReliabilityOutcome& o = *r.reliability;
  QString spread =
      o.samples > 0
          ? QString(", P10-P90 %1-%2 %\ntime to train %3 expected; P10 %4, P50 %5, P90 %6")
                .arg(100 * o.goodput_p10, 0, 'f', 1)
                .arg(100 * o.goodput_p90, 0, 'f', 1)
                .arg(duration(o.time_to_train_s), duration(o.time_to_train_p10_s),
                     duration(o.time_to_train_p50_s), duration(o.time_to_train_p90_s))
          : QString(" (not sampled: %1 failures expected)\ntime to train %2 expected")
                .arg(o.failures, 0, 'g', 3)
                .arg(duration(o.time_to_train_s));
  return QString(
             "%1 workers: goodput %2 % expected%3\n"
             "job fails every %4; checkpoint every %5, best %6 (%7 %)")
      .arg(r.workers)
      .arg(100 * o.goodput, 0, 'f', 1)
      .arg(spread)
      .arg(o.job_mtbf_s > 0 ? duration(o.job_mtbf_s) : QString("never"))
      .arg(o.checkpoint_interval_s > 0 ? duration(o.checkpoint_interval_s) : QString("never"))
      .arg(o.best_checkpoint_interval_s > 0 ? duration(o.best_checkpoint_interval_s)
                                            : QString("none"))
      .arg(100 * o.best_goodput, 0, 'f', 1);
}

const Curve* curve_with_reliability(const Curves& curves, const std::string& strategy) {
  auto has = [](const Curve& c) {
    return std::any_of(c.points.begin(), c.points.end(),
                       [](const core::RunResult& r) { return r.reliability.has_value(); });
  };
  for (const auto& c : curves.curves)
    if (c.strategy == strategy && has(c)) return &c;
  for (const auto& c : curves.curves)
    if (has(c)) return &c;
  return nullptr;
}

}  // namespace

LineChartData goodput_data(const Curves& curves, const std::string& strategy) {
  LineChartData d;
  d.title = "Goodput of the run";
  d.x_title = "workers";
  d.y_title = "goodput (%)";
  d.y_format = "%.0f";
  d.y_max = 100;
  const Curve* c = curve_with_reliability(curves, strategy);
  if (!c) return d;
  SeriesData expected{"expected", {}, {}}, p10{"P10", {}, {}}, p90{"P90", {}, {}};
  for (const auto& r : c->points) {
    if (!r.reliability) continue;
    QString tip = goodput_tip(r);
    expected.points.append(QPointF(r.workers, 100 * r.reliability->goodput));
    expected.tips.append(tip);
    if (r.reliability->samples == 0) continue;  // too many failures to sample
    p10.points.append(QPointF(r.workers, 100 * r.reliability->goodput_p10));
    p90.points.append(QPointF(r.workers, 100 * r.reliability->goodput_p90));
    p10.tips.append(tip);
    p90.tips.append(tip);
  }
  d.lines = {expected, p10, p90};
  const core::RunResult& last = c->points.back();
  d.subtitle = QString::fromStdString(c->strategy);
  if (last.reliability && last.reliability->best_checkpoint_interval_s > 0)
    d.subtitle += QString("; best checkpoint at %1: every %2")
                      .arg(last.workers)
                      .arg(duration(last.reliability->best_checkpoint_interval_s));
  return d;
}

}  // namespace scaleout::gui

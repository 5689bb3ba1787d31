// Headless pictures: the three charts of a set of curves side by side in one image, as the
// window would draw them (`scaleout-gui --render sweep.csv -o chart.png`, or chart.svg).
#pragma once

#include <QImage>
#include <QString>
#include <QWidget>
#include <memory>

#include "core/plan/plan.hpp"
#include "explore/study.hpp"
#include "gui/curves.hpp"

namespace scaleout::gui {

// Throughput, efficiency and the step-time breakdown at `breakdown_workers` (0: the middle
// size), and for a model-parallel `plan` the memory of each stage, laid out on one page.
// REQUIRES: a QApplication exists.
std::unique_ptr<QWidget> curves_page(const Curves& curves, int breakdown_workers = 0,
                                     const core::Plan* plan = nullptr);
QImage render_curves(const Curves& curves, int breakdown_workers = 0);

// A study's cases as one bar chart (study_data), or a crossover study's sweeps. REQUIRES: a
// QApplication exists.
std::unique_ptr<QWidget> study_page(const sim::StudyOutcome& outcome);
QImage render_study(const sim::StudyOutcome& outcome);

// Writes `page` as SVG (vectors) when `path` ends in .svg, else as PNG; nothing half-written.
bool save_page(QWidget& page, const QString& path);

}  // namespace scaleout::gui

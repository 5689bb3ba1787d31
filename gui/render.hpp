// Headless pictures: the three charts of a set of curves side by side in one image, as the
// window would draw them (`scaleout-gui --render sweep.csv -o chart.png`).
#pragma once

#include <QImage>
#include <QString>

#include "explore/study.hpp"
#include "gui/curves.hpp"

namespace scaleout::gui {

// Throughput, efficiency and the step-time breakdown at `breakdown_workers` (0: the middle
// size). REQUIRES: a QApplication exists.
QImage render_curves(const Curves& curves, int breakdown_workers = 0);

// A study's cases as one bar chart (study_data). REQUIRES: a QApplication exists.
QImage render_study(const sim::StudyOutcome& outcome);

}  // namespace scaleout::gui

// The GUI's names for the scaling curves, which live in explore/curves.hpp (the crossover study
// uses them too).
#pragma once

#include "explore/curves.hpp"

namespace scaleout::gui {

using sim::compute_curves;
using sim::Crossover;
using sim::Curve;
using sim::Curves;
using sim::default_strategies;
using sim::doubling_sizes;
using sim::find_crossovers;
using sim::find_point;
using sim::fitting_sizes;

}  // namespace scaleout::gui

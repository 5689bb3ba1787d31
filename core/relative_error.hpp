// The relative error of a prediction against a measurement, as comparisons report it.
#pragma once

namespace scaleout::core {

// (predicted - measured) / measured; 0 when nothing was measured (measured == 0).
inline double relative_error(double predicted, double measured) {
  return measured != 0 ? (predicted - measured) / measured : 0;
}

}  // namespace scaleout::core

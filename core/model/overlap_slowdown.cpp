#include "core/model/overlap_slowdown.hpp"

#include <algorithm>

namespace scaleout::core {

// While both run, the compute does 1 / (1 + s) of a second's work each second: the overlap lasts
// the communication, or the whole slowed compute, compute x (1 + s), if that ends first; each of
// its seconds costs s / (1 + s) of one.
double overlap_penalty(double compute, double communication, double slowdown) {
  if (slowdown <= 0 || compute <= 0 || communication <= 0) return 0;
  double overlap = std::min(communication, compute * (1 + slowdown));
  return overlap * slowdown / (1 + slowdown);
}

double span_beside(double compute, double communication, double slowdown) {
  return std::max(compute + overlap_penalty(compute, communication, slowdown), communication);
}

}  // namespace scaleout::core

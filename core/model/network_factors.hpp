// What each SimGrid network model does to a message, as the closed forms apply it: a latency and
// a bandwidth factor (by message size for `ib`) and the share of a flow that its reverse path
// carries (cross-traffic). No SimGrid here: the tables are SimGrid 3.32's defaults, and a test
// holds them to what the simulator configures.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace scaleout::core {

// Piecewise constant in the message size: the value of the largest threshold <= bytes.
struct SizeSteps {
  std::vector<std::pair<double, double>> steps;  // (threshold bytes, value), any order
  double at(double bytes) const;
};

// SimGrid's text form "65472:0.940694;15424:0.697866;...". Returns empty steps when malformed.
SizeSteps parse_size_steps(const std::string& text);

struct NetworkFactors {
  SizeSteps latency;    // multiplies a route's latency
  SizeSteps bandwidth;  // multiplies a flow's rate
  double cross_traffic = 1;
  bool by_size = false;  // the factors depend on the message size (ib)
};

// lv08: 13.01, 0.97, 1.05; cm02: none; ib: SMPI's size tables and LV08's cross-traffic.
NetworkFactors network_factors(const std::string& model);

// SimGrid 3.32's default smpi/lat-factor and smpi/bw-factor, which its IB model applies.
extern const char* const kSmpiLatencyFactors;
extern const char* const kSmpiBandwidthFactors;

}  // namespace scaleout::core

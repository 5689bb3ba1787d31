#include "core/model/network_factors.hpp"

#include <cstdlib>
#include <sstream>

namespace scaleout::core {

const char* const kSmpiLatencyFactors =
    "65472:11.6436;15424:3.48845;9376:2.59299;5776:2.18796;3484:1.88101;1426:1.61075;732:1.9503;"
    "257:1.95341;0:2.01467";
const char* const kSmpiBandwidthFactors =
    "65472:0.940694;15424:0.697866;9376:0.58729;5776:1.08739;3484:0.77493;1426:0.608902;"
    "732:0.341987;257:0.338112;0:0.812084";

double SizeSteps::at(double bytes) const {
  double best = -1, value = 1;
  for (const auto& [threshold, v] : steps)
    if (threshold <= bytes && threshold > best) best = threshold, value = v;
  return value;
}

SizeSteps parse_size_steps(const std::string& text) {
  SizeSteps out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ';')) {
    auto colon = item.find(':');
    if (colon == std::string::npos) return {};
    char* end = nullptr;
    double threshold = std::strtod(item.c_str(), &end);
    double value = std::strtod(item.c_str() + colon + 1, &end);
    out.steps.emplace_back(threshold, value);
  }
  return out;
}

NetworkFactors network_factors(const std::string& model) {
  NetworkFactors f;
  if (model == "lv08") {
    f.latency.steps = {{0, 13.01}};
    f.bandwidth.steps = {{0, 0.97}};
    f.cross_traffic = 1.05;
  } else if (model == "ib") {
    f.latency = parse_size_steps(kSmpiLatencyFactors);
    f.bandwidth = parse_size_steps(kSmpiBandwidthFactors);
    f.cross_traffic = 1.05;
    f.by_size = true;
  }
  return f;
}

}  // namespace scaleout::core

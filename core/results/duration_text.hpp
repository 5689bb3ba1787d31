// A duration as a person reads it, for the lines and tips that report long runs.
#pragma once

#include <string>

namespace scaleout::core {

// "12.3 s" under two minutes, "4.5 min" under two hours, "7.8 h" under three days, then
// "12.3 days"; "never" for an infinite one.
std::string duration_text(double seconds);

}  // namespace scaleout::core

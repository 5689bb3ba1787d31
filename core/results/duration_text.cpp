#include "core/results/duration_text.hpp"

#include <cmath>
#include <cstdio>

namespace scaleout::core {

std::string duration_text(double s) {
  char text[32];
  if (!std::isfinite(s)) return "never";
  if (s < 120)
    std::snprintf(text, sizeof text, "%.1f s", s);
  else if (s < 7200)
    std::snprintf(text, sizeof text, "%.1f min", s / 60);
  else if (s < 3 * 86400)
    std::snprintf(text, sizeof text, "%.1f h", s / 3600);
  else
    std::snprintf(text, sizeof text, "%.1f days", s / 86400);
  return text;
}

}  // namespace scaleout::core

#include "core/reliability/slow_nodes.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace scaleout::core {

namespace {
constexpr double kNever = std::numeric_limits<double>::infinity();
}

double expected_pace(const SlowdownRates& s) {
  if (!(s.rate > 0) || !(s.mean_s > 0)) return 1;
  double full = std::exp(-s.rate * s.mean_s);
  return full + (1 - full) * s.speed;
}

SlowNodes::SlowNodes(const SlowdownRates& s, std::uint64_t seed)
    : s_(s),
      random_(seed),
      gap_(s.rate > 0 ? s.rate : 1),
      length_(s.mean_s > 0 ? 1 / s.mean_s : 1),
      next_start_(s.rate > 0 && s.mean_s > 0 ? gap_(random_) : kNever) {}

void SlowNodes::draw_until(double t) {
  while (next_start_ <= t) {
    episodes_.push_back({next_start_, next_start_ + length_(random_)});
    next_start_ += gap_(random_);
  }
}

double SlowNodes::pace_at(double t) const {
  for (const Episode& e : episodes_)
    if (e.start <= t && t < e.end) return s_.speed;
  return 1;
}

double SlowNodes::next_change(double t) const {
  double next = next_start_;
  for (const Episode& e : episodes_) {
    if (e.start > t) next = std::min(next, e.start);
    if (e.end > t) next = std::min(next, e.end);
  }
  return next;
}

double SlowNodes::wall_for(double work, double now) {
  if (next_start_ == kNever) return work;
  std::erase_if(episodes_, [now](const Episode& e) { return e.end <= now; });
  double t = now, left = work;
  for (;;) {
    draw_until(t);
    double pace = pace_at(t), until = next_change(t);
    if (left <= (until - t) * pace) return t + left / pace - now;
    left -= (until - t) * pace;
    t = until;
  }
}

}  // namespace scaleout::core

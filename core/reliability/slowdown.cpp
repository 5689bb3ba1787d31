#include "core/reliability/slowdown.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace scaleout::core {

namespace {
std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
}  // namespace

double uniform01(std::uint64_t seed, std::uint64_t a, std::uint64_t b) {
  std::uint64_t h = splitmix64(splitmix64(splitmix64(seed) ^ a) ^ (b * 0x632be59bd9b4e019ULL));
  return (static_cast<double>(h >> 11) + 0.5) / 9007199254740992.0;  // 53 bits, never 0 or 1
}

double Slowdown::random_factor(int worker, int step) const {
  switch (s_.random) {
    case SlowdownKind::kNone:
      return 1;
    case SlowdownKind::kExponential:
      return 1 - s_.mean * std::log(uniform01(s_.seed, worker, step));
    case SlowdownKind::kLognormal: {
      double u1 = uniform01(s_.seed, worker, step),
             u2 = uniform01(s_.seed ^ 0x5bd1e995, worker, step);
      double normal = std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
      return std::exp(s_.sigma * normal);
    }
    case SlowdownKind::kBernoulli:
      return uniform01(s_.seed, worker, step) < s_.probability ? s_.factor : 1;
  }
  return 1;
}

double Slowdown::factor(int worker, int step) const {
  double f = random_factor(worker, step);
  if (std::find(s_.slow_workers.begin(), s_.slow_workers.end(), worker) != s_.slow_workers.end())
    f *= s_.slow_factor;
  return f;
}

}  // namespace scaleout::core

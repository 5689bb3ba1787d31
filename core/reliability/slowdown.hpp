// How much longer a worker's compute takes in a given step: fixed slow workers times a random
// per-step factor. Deterministic: the same seed, worker and step always give the same factor.
#pragma once

#include <cstdint>

#include "core/plan/plan.hpp"

namespace scaleout::core {

class Slowdown {
 public:
  explicit Slowdown(const Stragglers& stragglers) : s_(stragglers) {}

  // >= 1 for exponential and bernoulli; lognormal factors have median 1.
  double factor(int worker, int step) const;
  // The random part alone (1 when there is none).
  double random_factor(int worker, int step) const;

 private:
  Stragglers s_;
};

// A uniform number in (0, 1) from (seed, a, b): splitmix64 over the three.
double uniform01(std::uint64_t seed, std::uint64_t a, std::uint64_t b);

}  // namespace scaleout::core

// Nodes that slow down without failing (`reliability: { slow_mtbf, slow_speed, slow_for }`): each
// node turns slow at its own rate and stays slow for an exponential time; a synchronous job runs at
// its slowest node's pace, `slow_speed`, while any node is slow, and at full pace otherwise.
//
// In expectation (slowdowns arriving at rate lambda for the job, each lasting D on average), the
// number of nodes slow at once is Poisson with mean lambda x D (an M/G/infinity queue), so the job
// is at full pace a share exp(-lambda D) of the time and its mean pace is
// exp(-lambda D) + (1 - exp(-lambda D)) x slow_speed. A sampled run draws every slowdown.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace scaleout::core {

struct SlowdownRates {
  double rate = 0;    // slowdowns per second, the whole job's (0: none)
  double mean_s = 0;  // how long one lasts on average
  double speed = 1;   // the job's pace while any node is slow
};

// The job's mean pace over a long run (1 without slowdowns).
double expected_pace(const SlowdownRates& s);

// One sampled run's slowdowns, drawn lazily in wall time from a seed of their own.
class SlowNodes {
 public:
  SlowNodes(const SlowdownRates& s, std::uint64_t seed);
  // Wall seconds that `work` seconds of full-pace work take from wall time `now` (queries come in
  // increasing `now`; the slowdowns go on whatever the job does).
  double wall_for(double work, double now);

 private:
  struct Episode {
    double start, end;
  };
  void draw_until(double t);  // every slowdown that starts by t
  double pace_at(double t) const;
  double next_change(double t) const;  // the first start or end after t

  SlowdownRates s_;
  std::mt19937_64 random_;
  std::exponential_distribution<double> gap_, length_;
  double next_start_;
  std::vector<Episode> episodes_;  // drawn, not yet over
};

}  // namespace scaleout::core

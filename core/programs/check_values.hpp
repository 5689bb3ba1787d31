// The known gradient values executed runs move, chosen so that every sum a strategy forms stays
// exact in the gradient's precision whatever the order of additions: worker r holds
// value(r, i) = (r mod m + 1) x (i mod k + 1), small integers whose total over every contribution
// is at most the precision's largest exactly representable integer (fp32 2^24, fp16 2^11,
// bf16 2^8). m and k shrink only when the workers or the rounds need it.
#pragma once

#include <cstdint>
#include <string>

namespace scaleout::core {

class CheckValues {
 public:
  // `workers` contribute `rounds` times each to one sum (collectives: 1; a parameter server's
  // shard: the steps). Throws InputError when no values can keep such sums exact.
  CheckValues(int workers, int rounds, const std::string& precision, const std::string& file = "");

  float value(int rank, std::int64_t i) const {
    return static_cast<float>((rank % rank_kinds_ + 1) * (i % element_kinds_ + 1));
  }
  // What element i holds after an all-reduce over every worker.
  float sum(std::int64_t i) const {
    return static_cast<float>(rank_sum_ * (i % element_kinds_ + 1));
  }

 private:
  int rank_kinds_ = 1;     // m
  int element_kinds_ = 5;  // k
  long rank_sum_ = 0;      // sum over workers of (r mod m + 1)
};

// The largest integer below which every integer is exact in `precision` (fp32 | fp16 | bf16).
long exact_integer_limit(const std::string& precision);

}  // namespace scaleout::core

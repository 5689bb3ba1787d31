#include "core/programs/check_values.hpp"

#include <algorithm>

#include "core/plan/input_error.hpp"

namespace scaleout::core {

long exact_integer_limit(const std::string& precision) {
  if (precision == "fp16") return 1L << 11;
  if (precision == "bf16") return 1L << 8;
  return 1L << 24;
}

CheckValues::CheckValues(int workers, int rounds, const std::string& precision,
                         const std::string& file) {
  long limit = exact_integer_limit(precision);
  long contributions = static_cast<long>(std::max(1, workers)) * std::max(1, rounds);
  if (contributions > limit)
    throw InputError(file, 0, "training.gradient_precision",
                     "an executed " + precision + " run checks exact sums of at most " +
                         std::to_string(limit) + " contributions; this one has " +
                         std::to_string(contributions) + " (fewer workers or steps, or fp32)");
  // Distinct values per rank (m = workers) catch a misrouted range best; fewer when sums need it.
  auto total = [&](int m, int k) {
    long per_round = 0;
    for (int r = 0; r < workers; ++r) per_round += r % m + 1;
    return per_round * k * std::max(1, rounds);
  };
  rank_kinds_ = std::max(1, workers);
  while (rank_kinds_ > 1 && total(rank_kinds_, element_kinds_) > limit) --rank_kinds_;
  while (element_kinds_ > 1 && total(rank_kinds_, element_kinds_) > limit) --element_kinds_;
  for (int r = 0; r < workers; ++r) rank_sum_ += r % rank_kinds_ + 1;
}

}  // namespace scaleout::core

// How fast this CPU runs the gradient compressors and a server's delay compensation, in elements
// per second, on the same code the executed runs use: what `calibrate` writes as
// `device.compress` and `host.compensate_rate`, and what bench/ prints.
#pragma once

#include <cstdint>

#include "core/plan/plan.hpp"

namespace scaleout::core {

struct CodecRate {
  double encode = 0;  // elements/s, error feedback on
  double decode = 0;
};

// One worker's encode and decode of a `count`-element fp32 bucket, `repeats` times each (top-k
// and random-k keep a share `density`).
CodecRate measure_codec_rate(CompressionKind kind, std::int64_t count, int repeats,
                             double density = 0.001);

// One worker's PowerSGD step of a `count`-element fp32 bucket at `rank` (P, its sum,
// orthogonalization and Q, Q's sum, decode with error feedback), `repeats` times: elements/s.
double measure_low_rank_rate(std::int64_t count, int rank, int repeats);

struct CompensateRate {
  double update = 0;  // the compensated update of a push
  double copy = 0;    // the copy of the shard a pull keeps
  double add = 0;     // a plain gradient add, for comparison
  // Both passes of one push and pull: what host.compensate_rate takes.
  double both() const { return 1 / (1 / update + 1 / copy); }
};

// On a `count`-element shard, `repeats` passes each, one thread.
CompensateRate measure_compensate_rate(std::int64_t count, int repeats);

}  // namespace scaleout::core

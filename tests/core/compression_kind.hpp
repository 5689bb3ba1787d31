// A compression setting of one kind for codec tests: its density (top-k, random-k) and chunk.
#pragma once

#include "core/plan/plan.hpp"

namespace scaleout::testing {

inline core::Compression kind(core::CompressionKind k, double density = 0.01,
                              double chunk = 1 << 20) {
  core::Compression c;
  c.kind = k;
  c.density = density;
  c.chunk = chunk;
  return c;
}

}  // namespace scaleout::testing

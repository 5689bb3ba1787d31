// How a compute phase of a given number of floating-point operations becomes matrix products:
// square tiles of side `tile` (2 * tile^3 operations each), then one product for the rest,
// side x side x k with side a multiple of 256 and k of `k_step` (tensor cores want aligned
// shapes), side chosen near the cube root so that the product stays compute-bound rather than
// writing a tile-sized output for a few operations. Pure arithmetic, kept apart from cuBLAS so
// that it is tested without a GPU.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace scaleout::exec {

struct GemmSplit {
  std::int64_t full_tiles = 0;  // tile x tile x tile products
  std::int64_t rest_side = 0;   // then one rest_side x rest_side x rest_k product (0: none)
  std::int64_t rest_k = 0;

  // The operations the products perform.
  double flops(int tile) const {
    double t = tile, s = static_cast<double>(rest_side);
    return 2.0 * t * t * t * static_cast<double>(full_tiles) +
           2.0 * s * s * static_cast<double>(rest_k);
  }
};

// The products that perform `flops` operations to within half a k_step slice of the last product
// (side^2 * k_step operations). Every operand fits in tile x tile elements. Non-positive or
// non-finite: nothing.
inline GemmSplit split_gemms(double flops, int tile, int k_step) {
  constexpr std::int64_t kSideStep = 256;
  GemmSplit split;
  if (!(flops > 0) || !std::isfinite(flops) || tile < kSideStep || k_step <= 0) return split;
  double t = tile;
  split.full_tiles = static_cast<std::int64_t>(std::floor(flops / (2.0 * t * t * t)));
  double rest = flops - 2.0 * t * t * t * static_cast<double>(split.full_tiles);
  auto side = std::clamp<std::int64_t>(
      static_cast<std::int64_t>(std::cbrt(rest / 2) / kSideStep) * kSideStep, kSideStep, tile);
  auto k_for = [&](std::int64_t s) {
    double slices = rest / (2.0 * static_cast<double>(s) * static_cast<double>(s) * k_step);
    return static_cast<std::int64_t>(std::llround(slices)) * k_step;
  };
  while (k_for(side) > tile && side < tile) side += kSideStep;  // A (side x k) must fit a tile
  std::int64_t k = k_for(side);
  if (side == tile && k >= tile) {  // rounding reached a whole tile
    ++split.full_tiles;
  } else if (k > 0) {
    split.rest_side = side;
    split.rest_k = k;
  }
  return split;
}

}  // namespace scaleout::exec

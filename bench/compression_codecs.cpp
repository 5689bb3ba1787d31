// The compressors' rates on this CPU, in elements per second, as `device.compress` takes them:
// top-k selection (encode), and the element-wise passes (1-bit and int8 encode, decode). Prints
// one line per kind (PowerSGD: its whole step at ranks 1, 4 and 16); the figures are what an
// executed Gloo run spends, and a reference for the
// CPU rates to give a plan whose workers compress on the host.
#include <cstdio>

#include "core/codec_rates.hpp"

namespace {

void measure(const char* name, scaleout::core::CompressionKind kind, std::int64_t count,
             int repeats) {
  scaleout::core::CodecRate r = scaleout::core::measure_codec_rate(kind, count, repeats);
  std::printf("%-8s %10.3f G elements/s encode (error feedback on), %10.3f G elements/s decode\n",
              name, r.encode / 1e9, r.decode / 1e9);
}

}  // namespace

int main() {
  const std::int64_t count = 16 << 20;  // a 64 MiB bucket of fp32
  std::printf("bucket of %lld fp32 elements, one worker, 3 passes each:\n",
              static_cast<long long>(count));
  measure("topk", scaleout::core::CompressionKind::kTopk, count, 3);
  measure("randomk", scaleout::core::CompressionKind::kRandomk, count, 3);
  measure("int8", scaleout::core::CompressionKind::kInt8, count, 3);
  measure("onebit", scaleout::core::CompressionKind::kOnebit, count, 3);
  // PowerSGD's whole step (its products with the thin matrices are not element-wise passes):
  // what the closed forms charge at `pass` element-wise and 2r operations an element, beside it.
  for (int rank : {1, 4, 16})
    std::printf("powersgd rank %-2d %10.3f G elements/s, a whole step (encode, sums, decode)\n",
                rank, scaleout::core::measure_low_rank_rate(count, rank, 2) / 1e9);
  return 0;
}

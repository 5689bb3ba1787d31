// The compressors' rates on this CPU, in elements per second, as `device.compress` takes them:
// top-k selection (encode), and the element-wise passes (1-bit and int8 encode, decode). Prints
// one line per kind (PowerSGD: its whole step at ranks 1, 4 and 16); the figures are what an
// executed Gloo run spends, and a reference for the
// CPU rates to give a plan whose workers compress on the host.
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>

#include "core/codecs/codec_rates.hpp"
#include "core/codecs/codec_steps.hpp"

namespace {

void measure(const char* name, scaleout::core::CompressionKind kind, std::int64_t count,
             int repeats) {
  scaleout::core::CodecRate r = scaleout::core::measure_codec_rate(kind, count, repeats);
  std::printf("%-8s %10.3f G elements/s encode (error feedback on), %10.3f G elements/s decode\n",
              name, r.encode / 1e9, r.decode / 1e9);
}

// Top-k's selection alone, side by side: DGC's sampled threshold then an exact selection among
// the candidates (what the codecs run), against the exact selection over the whole bucket; both
// give the same indices.
void selection(std::int64_t count, std::int64_t k) {
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x(static_cast<std::size_t>(count));
  for (float& v : x) v = normal(rng);
  auto seconds = [](auto&& work) {
    auto t0 = std::chrono::steady_clock::now();
    work();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  std::size_t sampled = 0, whole = 0;
  double s = seconds([&] { sampled = scaleout::core::top_k_indices(x.data(), count, k).size(); });
  double w = seconds([&] { whole = scaleout::core::largest_k(x, k).size(); });
  std::printf(
      "top-k selection of %lld (density %.4g): sampled threshold %.3f s, whole bucket "
      "%.3f s (%.1fx), %zu and %zu kept\n",
      static_cast<long long>(k), static_cast<double>(k) / count, s, w, w / s, sampled, whole);
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
  for (double density : {0.001, 0.01}) selection(count, static_cast<std::int64_t>(density * count));
  return 0;
}

// The rate at which a CPU server compensates (DC-ASGD), in elements per second, as
// `host.compensate_rate` takes it: the compensated update of a push plus the copy of the shard
// its pull keeps, measured the same way on the same buffers beside a plain gradient add.
#include "core/delay_compensation.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <typename Pass>
double rate(std::int64_t count, int repeats, Pass pass) {
  pass();  // touch the pages first
  auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < repeats; ++r) pass();
  return static_cast<double>(count) * repeats / seconds_since(t0);
}

}  // namespace

int main() {
  const std::int64_t count = 16 << 20;  // a 64 MiB shard of fp32
  std::vector<float> w(count, 0.5f), g(count), pulled(count, 0.25f);
  for (std::int64_t i = 0; i < count; ++i) g[i] = static_cast<float>((i * 7919) % 1000) * 1e-3f;
  const int repeats = 10;
  double compensated = rate(count, repeats, [&] {
    scaleout::core::compensated_update(w.data(), g.data(), pulled.data(), count, 0.04f, 1e-6f);
  });
  double add = rate(count, repeats, [&] {
    for (std::int64_t i = 0; i < count; ++i) w[i] += g[i];
  });
  double copy = rate(count, repeats, [&] { std::copy(w.begin(), w.end(), pulled.begin()); });
  std::printf("shard of %lld fp32 elements, one thread, %d passes each:\n",
              static_cast<long long>(count), repeats);
  double both = 1 / (1 / compensated + 1 / copy);
  std::printf("compensated update %8.3f G elements/s\n", compensated / 1e9);
  std::printf("pulled copy        %8.3f G elements/s\n", copy / 1e9);
  std::printf("update + copy      %8.3f G elements/s (host.compensate_rate)\n", both / 1e9);
  std::printf("plain add          %8.3f G elements/s (%.2fx update + copy)\n", add / 1e9,
              add / both);
  return 0;
}

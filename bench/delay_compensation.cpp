// The rate at which a CPU server compensates (DC-ASGD), in elements per second, as
// `host.compensate_rate` takes it: the compensated update of a push plus the copy of the shard
// its pull keeps, measured the same way on the same buffers beside a plain gradient add
// (core/codecs/codec_rates.hpp, which `calibrate` uses too).
#include <cstdio>

#include "core/codecs/codec_rates.hpp"

int main() {
  const std::int64_t count = 16 << 20;  // a 64 MiB shard of fp32
  const int repeats = 10;
  scaleout::core::CompensateRate r = scaleout::core::measure_compensate_rate(count, repeats);
  std::printf("shard of %lld fp32 elements, one thread, %d passes each:\n",
              static_cast<long long>(count), repeats);
  std::printf("compensated update %8.3f G elements/s\n", r.update / 1e9);
  std::printf("pulled copy        %8.3f G elements/s\n", r.copy / 1e9);
  std::printf("update + copy      %8.3f G elements/s (host.compensate_rate)\n", r.both() / 1e9);
  std::printf("plain add          %8.3f G elements/s (%.2fx update + copy)\n", r.add / 1e9,
              r.add / r.both());
  return 0;
}

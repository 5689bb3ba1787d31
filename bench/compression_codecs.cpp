// The compressors' rates on this CPU, in elements per second, as `device.compress` takes them:
// top-k selection (encode), and the element-wise passes (1-bit and int8 encode, decode). Prints
// one line per kind; the figures are what an executed Gloo run spends, and a reference for the
// CPU rates to give a plan whose workers compress on the host.
#include <chrono>
#include <cstdio>
#include <vector>

#include "core/compression_codec.hpp"

namespace {

using scaleout::core::BucketCodec;
using scaleout::core::CodecState;
using scaleout::core::Compression;
using scaleout::core::CompressionKind;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void measure(const char* name, CompressionKind kind, std::int64_t count, int repeats) {
  Compression c;
  c.kind = kind;
  c.density = 0.001;
  BucketCodec codec(c, 1, count);
  std::vector<float> grad(count), scratch(codec.scratch_words()), out(count);
  for (std::int64_t i = 0; i < count; ++i) grad[i] = static_cast<float>((i * 7919) % 1000) - 500;
  CodecState st;
  double encode = 0, decode = 0;
  for (int r = 0; r < repeats; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    codec.encode(0, 0, grad.data(), scratch.data(), st);
    encode += seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    codec.decode(scratch.data(), out.data());
    decode += seconds_since(t0);
  }
  double elements = static_cast<double>(count) * repeats;
  std::printf("%-8s %10.3f G elements/s encode (error feedback on), %10.3f G elements/s decode\n",
              name, elements / encode / 1e9, elements / decode / 1e9);
}

}  // namespace

int main() {
  const std::int64_t count = 16 << 20;  // a 64 MiB bucket of fp32
  std::printf("bucket of %lld fp32 elements, one worker, mean of 3 runs each:\n",
              static_cast<long long>(count));
  measure("topk", CompressionKind::kTopk, count, 3);
  measure("randomk", CompressionKind::kRandomk, count, 3);
  measure("int8", CompressionKind::kInt8, count, 3);
  measure("onebit", CompressionKind::kOnebit, count, 3);
  return 0;
}

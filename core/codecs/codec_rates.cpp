#include "core/codecs/codec_rates.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

#include "core/codecs/compression_codec.hpp"
#include "core/codecs/delay_compensation.hpp"
#include "core/codecs/powersgd_codec.hpp"

namespace scaleout::core {

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

CodecRate measure_codec_rate(CompressionKind kind, std::int64_t count, int repeats,
                             double density) {
  Compression c;
  c.kind = kind;
  c.density = density;
  BucketCodec codec(c, 1, count);
  std::vector<float> grad(count), scratch(codec.scratch_words()), out(count);
  for (std::int64_t i = 0; i < count; ++i) grad[i] = static_cast<float>((i * 7919) % 1000) - 500;
  CodecState st;
  CodecRate r;
  r.encode = rate(count, repeats, [&] { codec.encode(0, 0, grad.data(), scratch.data(), st); });
  r.decode = rate(count, repeats, [&] { codec.decode(scratch.data(), out.data()); });
  return r;
}

double measure_low_rank_rate(std::int64_t count, int rank, int repeats) {
  Compression c;
  c.kind = CompressionKind::kPowersgd;
  c.rank = rank;
  LowRankCodec codec(c, 1, count);
  std::vector<float> grad(count), scratch(codec.scratch_words()), out(count);
  for (std::int64_t i = 0; i < count; ++i) grad[i] = static_cast<float>((i * 7919) % 1000) - 500;
  LowRankState st;
  return rate(count, repeats, [&] {
    codec.encode_p(0, grad.data(), scratch.data(), st);
    codec.owner_sum(0, codec.p_slot(), scratch.data());
    codec.encode_q(scratch.data(), st);
    codec.owner_sum(0, codec.q_slot(), scratch.data());
    codec.decode(scratch.data(), out.data(), st);
  });
}

CompensateRate measure_compensate_rate(std::int64_t count, int repeats) {
  std::vector<float> w(count, 0.5f), g(count), pulled(count, 0.25f);
  for (std::int64_t i = 0; i < count; ++i) g[i] = static_cast<float>((i * 7919) % 1000) * 1e-3f;
  CompensateRate r;
  r.update = rate(count, repeats, [&] {
    compensated_update(w.data(), g.data(), pulled.data(), count, 0.04f, 1e-6f);
  });
  r.add = rate(count, repeats, [&] {
    for (std::int64_t i = 0; i < count; ++i) w[i] += g[i];
  });
  r.copy = rate(count, repeats, [&] { std::copy(w.begin(), w.end(), pulled.begin()); });
  return r;
}

}  // namespace scaleout::core

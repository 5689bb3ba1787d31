#include "exec/half_sums.hpp"

#include <bit>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define SCALEOUT_X86 1
#endif

namespace scaleout::exec {

float bf16_to_float(std::uint16_t h) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(h) << 16);
}

std::uint16_t float_to_bf16(float f) {
  auto bits = std::bit_cast<std::uint32_t>(f);
  bits += 0x7FFF + ((bits >> 16) & 1);
  return static_cast<std::uint16_t>(bits >> 16);
}

void add_fp16_portable(std::uint16_t* dst, const std::uint16_t* in, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    _Float16 a, b;
    std::memcpy(&a, dst + i, sizeof a);
    std::memcpy(&b, in + i, sizeof b);
    auto sum = static_cast<_Float16>(static_cast<float>(a) + static_cast<float>(b));
    std::memcpy(dst + i, &sum, sizeof sum);
  }
}

void add_bf16_portable(std::uint16_t* dst, const std::uint16_t* in, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i)
    dst[i] = float_to_bf16(bf16_to_float(dst[i]) + bf16_to_float(in[i]));
}

#ifdef SCALEOUT_X86

bool vector_half_sums_available() {
  static const bool available = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
  return available;
}

__attribute__((target("avx2,f16c"))) void add_fp16_vector(std::uint16_t* dst,
                                                          const std::uint16_t* in, std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 a = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(dst + i)));
    __m256 b = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i)));
    __m128i sum = _mm256_cvtps_ph(_mm256_add_ps(a, b), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), sum);
  }
  add_fp16_portable(dst + i, in + i, n - i);
}

// bf16 widens by a shift; it rounds back to nearest even with the same integer steps as
// float_to_bf16, eight lanes at a time.
__attribute__((target("avx2"))) void add_bf16_vector(std::uint16_t* dst, const std::uint16_t* in,
                                                     std::int64_t n) {
  const __m256i half_ulp = _mm256_set1_epi32(0x7FFF), one = _mm256_set1_epi32(1);
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256i a = _mm256_slli_epi32(
        _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(dst + i))), 16);
    __m256i b = _mm256_slli_epi32(
        _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i))), 16);
    __m256i bits =
        _mm256_castps_si256(_mm256_add_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b)));
    __m256i odd = _mm256_and_si256(_mm256_srli_epi32(bits, 16), one);
    bits = _mm256_srli_epi32(_mm256_add_epi32(bits, _mm256_add_epi32(half_ulp, odd)), 16);
    __m128i packed =
        _mm_packus_epi32(_mm256_castsi256_si128(bits), _mm256_extracti128_si256(bits, 1));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), packed);
  }
  add_bf16_portable(dst + i, in + i, n - i);
}

#else

bool vector_half_sums_available() { return false; }
void add_fp16_vector(std::uint16_t* dst, const std::uint16_t* in, std::int64_t n) {
  add_fp16_portable(dst, in, n);
}
void add_bf16_vector(std::uint16_t* dst, const std::uint16_t* in, std::int64_t n) {
  add_bf16_portable(dst, in, n);
}

#endif

void add_fp16(std::uint16_t* dst, const std::uint16_t* in, std::int64_t n) {
  if (vector_half_sums_available())
    add_fp16_vector(dst, in, n);
  else
    add_fp16_portable(dst, in, n);
}

void add_bf16(std::uint16_t* dst, const std::uint16_t* in, std::int64_t n) {
  if (vector_half_sums_available())
    add_bf16_vector(dst, in, n);
  else
    add_bf16_portable(dst, in, n);
}

}  // namespace scaleout::exec

// The vector half-precision sums (AVX2 + F16C) against the portable loops, bit for bit, over every
// 16-bit pattern as the destination paired with others by several permutations: subnormals,
// infinities, ties that round to even and sums that overflow included. A NaN must stay a NaN
// (its payload may differ).
#include "exec/half_sums.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "exec/gradient_buffer.hpp"

namespace scaleout::exec {
namespace {

bool fp16_nan(std::uint16_t h) { return (h & 0x7C00) == 0x7C00 && (h & 0x03FF) != 0; }
bool bf16_nan(std::uint16_t h) { return (h & 0x7F80) == 0x7F80 && (h & 0x007F) != 0; }

using Add = void (*)(std::uint16_t*, const std::uint16_t*, std::int64_t);

// Every pattern as `dst`, each paired with (i * stride + offset) mod 2^16.
void expect_same_sums(Add vector, Add portable, bool (*nan)(std::uint16_t), const char* what) {
  constexpr int kPatterns = 1 << 16;
  long differ = 0;
  for (std::uint32_t stride : {1u, 7919u, 40503u, 65535u})
    for (std::uint32_t offset : {0u, 1u, 0x3C00u, 0x8001u}) {
      std::vector<std::uint16_t> a(kPatterns), b(kPatterns);
      for (int i = 0; i < kPatterns; ++i) {
        a[i] = static_cast<std::uint16_t>(i);
        b[i] = static_cast<std::uint16_t>(i * stride + offset);
      }
      std::vector<std::uint16_t> v = a, p = a;
      // An odd count leaves a tail the vector form hands to the portable loop.
      vector(v.data(), b.data(), kPatterns - 3);
      portable(p.data(), b.data(), kPatterns - 3);
      for (int i = 0; i < kPatterns; ++i)
        if (v[i] != p[i] && !(nan(v[i]) && nan(p[i]))) {
          if (++differ <= 5)
            ADD_FAILURE() << what << ": " << std::hex << a[i] << " + " << b[i] << " gave " << v[i]
                          << " vector, " << p[i] << " portable";
        }
    }
  EXPECT_EQ(differ, 0) << what;
}

TEST(HalfSums, VectorFormsEqualThePortableLoopsBitForBit) {
  if (!vector_half_sums_available()) GTEST_SKIP() << "this CPU lacks AVX2 or F16C";
  expect_same_sums(add_fp16_vector, add_fp16_portable, fp16_nan, "fp16");
  expect_same_sums(add_bf16_vector, add_bf16_portable, bf16_nan, "bf16");
}

// Sums against hand arithmetic: in fp16 (10 mantissa bits) 1 + 2^-11 is a tie and rounds to even
// (1), (1 + 2^-10) + 2^-11 is a tie too and rounds up to the even 1 + 2^-9; bf16 (7 bits) likewise.
TEST(HalfSums, SumsRoundToNearestEven) {
  GradientBuffer h(ElementType::kFp16, 2), in(ElementType::kFp16, 2);
  h.set(0, 1.0f);
  h.set(1, 1.0f + 1.0f / 1024);
  in.set(0, 1.0f / 2048);
  in.set(1, 1.0f / 2048);
  add_elements(ElementType::kFp16, h.at(0), in.at(0), 2);
  EXPECT_EQ(h.get(0), 1.0f);
  EXPECT_EQ(h.get(1), 1.0f + 2.0f / 1024);
  GradientBuffer b(ElementType::kBf16, 1), bin(ElementType::kBf16, 1);
  b.set(0, 1.0f);
  bin.set(0, 1.0f / 256);  // a tie at bf16's precision: rounds to even (1)
  add_elements(ElementType::kBf16, b.at(0), bin.at(0), 1);
  EXPECT_EQ(b.get(0), 1.0f);
}

}  // namespace
}  // namespace scaleout::exec

// Sums of half-precision gradients on the CPU (fp16 and bf16, added in float and rounded back to
// nearest even, as NCCL and Gloo reduce halves). Portable loops convert one element at a time
// (fp16 through libgcc's soft conversions: 0.08 G elements/s here, 50x slower than fp32); where
// the CPU has AVX2 and F16C the vector forms convert and add eight at a time, bit for bit the same
// (a NaN stays a NaN; its payload may differ).
#pragma once

#include <cstdint>

namespace scaleout::exec {

// bfloat16 is the upper half of a float; the conversion back rounds to nearest even.
float bf16_to_float(std::uint16_t h);
std::uint16_t float_to_bf16(float f);

// dst[i] = round(float(dst[i]) + float(in[i])), elements as their 16-bit patterns.
void add_fp16_portable(std::uint16_t* dst, const std::uint16_t* in, std::int64_t n);
void add_bf16_portable(std::uint16_t* dst, const std::uint16_t* in, std::int64_t n);

// Whether this CPU runs the vector forms (checked once, at run time).
bool vector_half_sums_available();
// REQUIRES: vector_half_sums_available().
void add_fp16_vector(std::uint16_t* dst, const std::uint16_t* in, std::int64_t n);
void add_bf16_vector(std::uint16_t* dst, const std::uint16_t* in, std::int64_t n);

// The vector form where available, else the portable one.
void add_fp16(std::uint16_t* dst, const std::uint16_t* in, std::int64_t n);
void add_bf16(std::uint16_t* dst, const std::uint16_t* in, std::int64_t n);

}  // namespace scaleout::exec

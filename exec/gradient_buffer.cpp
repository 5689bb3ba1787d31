#include "exec/gradient_buffer.hpp"

#include <cstring>

#include "exec/half_sums.hpp"

namespace scaleout::exec {

namespace {

// Restrict lets the compiler vectorize the sums without checking for overlap at run time.
void add_fp32(float* __restrict dst, const float* __restrict in, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) dst[i] += in[i];
}

}  // namespace

ElementType element_type(const std::string& precision) {
  if (precision == "fp16") return ElementType::kFp16;
  if (precision == "bf16") return ElementType::kBf16;
  return ElementType::kFp32;
}

int element_bytes(ElementType type) { return type == ElementType::kFp32 ? 4 : 2; }

const char* element_name(ElementType type) {
  switch (type) {
    case ElementType::kFp16:
      return "half";
    case ElementType::kBf16:
      return "bfloat16";
    default:
      return "float";
  }
}

void add_elements(ElementType type, std::byte* dst, const std::byte* in, std::int64_t count) {
  // The buffers are allocated as bytes: alignment of std::vector/new storage suits every type.
  switch (type) {
    case ElementType::kFp16:
      add_fp16(reinterpret_cast<std::uint16_t*>(dst), reinterpret_cast<const std::uint16_t*>(in),
               count);
      break;
    case ElementType::kBf16:
      add_bf16(reinterpret_cast<std::uint16_t*>(dst), reinterpret_cast<const std::uint16_t*>(in),
               count);
      break;
    default:
      add_fp32(reinterpret_cast<float*>(dst), reinterpret_cast<const float*>(in), count);
  }
}

GradientBuffer::GradientBuffer(ElementType type, std::int64_t elements)
    : type_(type), elements_(elements), bytes_(bytes(elements)) {}

float GradientBuffer::get(std::int64_t i) const {
  const std::byte* p = at(i);
  if (type_ == ElementType::kFp32) {
    float f;
    std::memcpy(&f, p, sizeof f);
    return f;
  }
  std::uint16_t h;
  std::memcpy(&h, p, sizeof h);
  if (type_ == ElementType::kBf16) return bf16_to_float(h);
  _Float16 half;
  std::memcpy(&half, &h, sizeof h);
  return static_cast<float>(half);
}

void GradientBuffer::set(std::int64_t i, float value) {
  std::byte* p = at(i);
  if (type_ == ElementType::kFp32) {
    std::memcpy(p, &value, sizeof value);
  } else if (type_ == ElementType::kBf16) {
    std::uint16_t h = float_to_bf16(value);
    std::memcpy(p, &h, sizeof h);
  } else {
    auto half = static_cast<_Float16>(value);
    std::memcpy(p, &half, sizeof half);
  }
}

void GradientBuffer::add(core::Span span, const std::byte* in) {
  add_elements(type_, at(span.begin), in, span.count);
}

void GradientBuffer::copy_in(core::Span span, const std::byte* in) {
  if (span.count > 0) std::memmove(at(span.begin), in, bytes(span.count));
}

}  // namespace scaleout::exec

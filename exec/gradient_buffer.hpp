// A rank's gradient in the plan's precision (fp32, fp16 or bf16), as bytes the transport moves;
// additions happen in float and round back to the element type, as NCCL and Gloo reduce halves.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/programs/fabric.hpp"
#include "exec/element_type.hpp"

namespace scaleout::exec {

class GradientBuffer {
 public:
  GradientBuffer(ElementType type, std::int64_t elements);

  ElementType type() const { return type_; }
  int element_size() const { return element_bytes(type_); }
  std::int64_t size() const { return elements_; }
  std::size_t bytes(std::int64_t count) const {
    return static_cast<std::size_t>(count) * element_size();
  }
  std::byte* at(std::int64_t i) { return bytes_.data() + bytes(i); }
  const std::byte* at(std::int64_t i) const { return bytes_.data() + bytes(i); }

  float get(std::int64_t i) const;
  void set(std::int64_t i, float value);
  // this[span] = values of `in` (count elements of this buffer's type) added to this[span].
  void add(core::Span span, const std::byte* in);
  // this[span] = in.
  void copy_in(core::Span span, const std::byte* in);

 private:
  ElementType type_;
  std::int64_t elements_;
  std::vector<std::byte> bytes_;
};

// Adds `count` elements of `type` at `in` into `dst`.
void add_elements(ElementType type, std::byte* dst, const std::byte* in, std::int64_t count);

}  // namespace scaleout::exec

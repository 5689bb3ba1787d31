// The words every role of the fabric (core/programs/fabric.hpp) speaks: a range of gradient
// elements and what a receive does with the data it gets.
#pragma once

#include <cstdint>

namespace scaleout::core {

// A contiguous range of gradient elements [begin, begin + count).
struct Span {
  std::int64_t begin = 0;
  std::int64_t count = 0;
  std::int64_t end() const { return begin + count; }
  bool operator==(const Span&) const = default;
};

// What a receive does with the data it gets: overwrite the local range, or add into it.
enum class Combine { kReplace, kAdd };

}  // namespace scaleout::core

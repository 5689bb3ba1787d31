// One parser for every quantity with a unit that a plan, topology or workload may contain.
// Everything is converted to SI base units: seconds, bytes, bytes/s, FLOP, FLOP/s.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace scaleout::core {

// No limit: a bandwidth, latency or time without bound.
inline constexpr double kInfinite = std::numeric_limits<double>::infinity();

enum class Quantity {
  kBandwidth,  // "100Gbps" (bits), "25GB/s" or "25GBps" (bytes) -> bytes/s
  kTime,       // "1.5us", "2ms", "3s", "10ns", "90min", "1.5h", "2d" -> seconds
  kBytes,      // "4MiB", "64MB", "100B", "1GiB" -> bytes
  kFlops,      // "125TFLOPS" -> FLOP/s
  kFlop,       // "12.3GFLOP" -> FLOP
  kCount,      // "25.6M", "2.05M", "1200", "1.5K", "70B", "1.5T" -> plain number
};

// Name used in error messages ("a bandwidth such as 100Gbps or 25GB/s").
std::string quantity_example(Quantity q);

// Parses `text` as a quantity of kind `q`. Returns std::nullopt when the text is not a number
// followed by a unit of that kind, or when the value is not finite (".nan", "inf", or a number
// such as "1e308GB/s" that overflows once scaled). Bits and bytes are never mixed: "Gb/s" and
// "Gbps" are bits, "GB/s" and "GBps" are bytes. A bare number is accepted for kCount and kBytes
// only. When `why` is given, it receives the reason on failure ("not finite" or "not a unit").
std::optional<double> parse_quantity(std::string_view text, Quantity q, std::string* why = nullptr);

// A time typed on a command line or in a form: a bare number of seconds ("86400") or a number
// with a time unit ("3600s", "1.5h"). Count suffixes are refused ("6M" is not six million seconds).
std::optional<double> parse_seconds(std::string_view text);

// Human-readable rendering, e.g. format_bytes(104857600) == "100MiB".
std::string format_bytes(double bytes);

}  // namespace scaleout::core

#include "core/plan/units.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace scaleout::core {

namespace {

struct Suffix {
  std::string_view text;
  double factor;
};

double decimal_prefix(char c) {
  switch (c) {
    case 'K':
    case 'k':
      return 1e3;
    case 'M':
      return 1e6;
    case 'G':
      return 1e9;
    case 'T':
      return 1e12;
    case 'P':
      return 1e15;
    default:
      return 0;
  }
}

enum class Split { kOk, kNoNumber, kOutOfRange };

// Splits "12.5GB/s" into 12.5 and "GB/s". kNoNumber when there is no leading number, kOutOfRange
// when it does not fit a double ("1e400").
Split split_number(std::string_view text, double& value, std::string_view& unit) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  std::size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.' ||
                             text[i] == 'e' || text[i] == '-' || text[i] == '+')) {
    // An 'e' belongs to the number only when a digit follows (so "1e9" parses, "1EB" does not).
    if (text[i] == 'e' &&
        !(i + 1 < text.size() && (std::isdigit(static_cast<unsigned char>(text[i + 1])) ||
                                  text[i + 1] == '-' || text[i + 1] == '+')))
      break;
    ++i;
  }
  if (i == 0) return Split::kNoNumber;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + i, value);
  if (ec == std::errc::result_out_of_range && ptr == text.data() + i) return Split::kOutOfRange;
  if (ec != std::errc() || ptr != text.data() + i) return Split::kNoNumber;
  unit = text.substr(i);
  while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.front())))
    unit.remove_prefix(1);
  return std::isfinite(value) ? Split::kOk : Split::kOutOfRange;
}

// Matches unit = [prefix] base, with decimal prefixes (K, M, G, T, P) and, when `binary` is
// allowed, binary ones (Ki, Mi, Gi, Ti). Returns the multiplier or 0 when it does not match.
double match_prefixed(std::string_view unit, const std::vector<Suffix>& bases, bool binary) {
  for (const auto& base : bases) {
    if (unit.size() < base.text.size()) continue;
    if (unit.substr(unit.size() - base.text.size()) != base.text) continue;
    std::string_view prefix = unit.substr(0, unit.size() - base.text.size());
    if (prefix.empty()) return base.factor;
    if (prefix.size() == 1) {
      double p = decimal_prefix(prefix[0]);
      if (p > 0) return p * base.factor;
    }
    if (binary && prefix.size() == 2 && prefix[1] == 'i') {
      switch (prefix[0]) {
        case 'K':
          return 1024.0 * base.factor;
        case 'M':
          return 1048576.0 * base.factor;
        case 'G':
          return 1073741824.0 * base.factor;
        case 'T':
          return 1099511627776.0 * base.factor;
        default:
          break;
      }
    }
  }
  return 0;
}

// The multiplier of `unit` for quantities of kind `q`; 0 when it is not one of its units.
double unit_factor(std::string_view unit, Quantity q) {
  double factor = 0;
  switch (q) {
    case Quantity::kBandwidth:
      factor =
          match_prefixed(unit, {{"bps", 1.0 / 8}, {"b/s", 1.0 / 8}, {"Bps", 1}, {"B/s", 1}}, true);
      break;
    case Quantity::kTime:
      if (unit == "s")
        factor = 1;
      else if (unit == "ms")
        factor = 1e-3;
      else if (unit == "us")
        factor = 1e-6;
      else if (unit == "ns")
        factor = 1e-9;
      else if (unit == "min")
        factor = 60;
      else if (unit == "h")
        factor = 3600;
      else if (unit == "d")
        factor = 86400;
      break;
    case Quantity::kBytes:
      factor = unit.empty() ? 1 : match_prefixed(unit, {{"B", 1}}, true);
      break;
    case Quantity::kFlops:
      factor = match_prefixed(unit, {{"FLOPS", 1}, {"FLOP/s", 1}, {"flops", 1}}, false);
      break;
    case Quantity::kFlop:
      factor = match_prefixed(unit, {{"FLOP", 1}, {"flop", 1}}, false);
      break;
    case Quantity::kCount:
      if (unit.empty())
        factor = 1;
      else if (unit == "B")  // billions, as model sizes are written ("70B"); T is already 1e12
        factor = 1e9;
      else if (unit.size() == 1)
        factor = decimal_prefix(unit[0]);
      break;
  }
  return factor;
}

}  // namespace

std::string quantity_example(Quantity q) {
  switch (q) {
    case Quantity::kBandwidth:
      return "a bandwidth such as 100Gbps or 25GB/s";
    case Quantity::kTime:
      return "a time such as 1.5us, 2ms, 1s, 90min, 1.5h or 2d";
    case Quantity::kBytes:
      return "a size such as 4MiB or 64MB";
    case Quantity::kFlops:
      return "a compute rate such as 125TFLOPS";
    case Quantity::kFlop:
      return "an amount of work such as 12.3GFLOP";
    case Quantity::kCount:
      return "a number such as 25.6M, 70B or 1200";
  }
  return "a quantity";
}

std::optional<double> parse_quantity(std::string_view text, Quantity q, std::string* why) {
  double value = 0;
  std::string_view unit;
  Split split = split_number(text, value, unit);
  if (split != Split::kOk) {
    if (why) *why = split == Split::kOutOfRange ? "not finite" : "not a unit";
    return std::nullopt;
  }
  double factor = unit_factor(unit, q);
  if (factor <= 0) {
    if (why) *why = "not a unit";
    return std::nullopt;
  }
  // A finite number times a finite factor can still overflow ("1e308GB/s").
  if (!std::isfinite(value * factor)) {
    if (why) *why = "not finite";
    return std::nullopt;
  }
  return value * factor;
}

std::optional<double> parse_seconds(std::string_view text) {
  if (auto time = parse_quantity(text, Quantity::kTime)) return time;
  double value = 0;
  std::string_view unit;
  if (split_number(text, value, unit) != Split::kOk || !unit.empty()) return std::nullopt;
  return value;
}

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int i = 0;
  while (std::fabs(bytes) >= 1024 && i < 4) {
    bytes /= 1024;
    ++i;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g%s", bytes, units[i]);
  return buf;
}

}  // namespace scaleout::core

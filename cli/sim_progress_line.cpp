#include "cli/sim_progress_line.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <memory>

namespace scaleout::cli {

std::string grouped(std::uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

namespace {

std::string format(const char* pattern, double a, double b = 0) {
  char buf[96];
  std::snprintf(buf, sizeof buf, pattern, a, b);
  return buf;
}

// A line every this many seconds where lines pile up (a file, a pipe); redrawn more often on a
// terminal. Short simulations print nothing before this much wall time.
constexpr double kPileEvery = 5;
constexpr double kRedrawEvery = 0.5;
constexpr double kQuietFirst = 1;

// ", about 12 min left at this rate" from the average rate so far (none before 10,000 messages or
// past the estimate). A rate that falls as the run goes on (an asynchronous PS's, when its servers'
// links fill) makes it too short at first.
std::string time_left(const sim::ProgressReport& r) {
  double sent = static_cast<double>(r.messages);
  if (sent < 1e4 || sent >= r.estimated_messages || r.elapsed_s <= 0) return "";
  double left_s = (r.estimated_messages - sent) / (sent / r.elapsed_s);
  if (left_s < 120) return format(", about %.0f s left at this rate", left_s);
  if (left_s < 7200) return format(", about %.0f min left at this rate", left_s / 60);
  return format(", about %.1f h left at this rate", left_s / 3600);
}

}  // namespace

std::string progress_line(const sim::ProgressReport& r) {
  if (r.messages == 0)
    return format(
        "simulating: no message sent yet (building the platform and the actors first), %.0f s",
        r.elapsed_s);
  return "simulating: " + grouped(r.messages) + " messages of about " +
         grouped(static_cast<std::uint64_t>(r.estimated_messages)) +
         format(", %.3g s simulated, %.0f s", r.simulated_s, r.elapsed_s) + time_left(r);
}

std::string progress_summary(const sim::ProgressReport& r) {
  return "simulated " + grouped(r.messages) + " messages (estimated about " +
         grouped(static_cast<std::uint64_t>(r.estimated_messages)) + ")" +
         format(" in %.1f s", r.elapsed_s);
}

sim::OnProgress progress_printer(const std::string& mode) {
  bool terminal = ::isatty(STDERR_FILENO) != 0;
  if (mode == "never" || (mode == "auto" && !terminal)) return {};
  bool always = mode == "always";
  // When the last line of this simulation was printed (-1: none yet), shared by the copies of
  // the function; a next simulation (a baseline) starts over.
  auto shown = std::make_shared<double>(-1);
  return [terminal, always, shown](const sim::ProgressReport& r) {
    if (r.finished) {
      // A summary where progress was shown; nothing after a short simulation on a terminal.
      bool any = *shown >= 0;
      *shown = -1;
      if (!any && !always) return;
      std::fprintf(stderr, terminal ? "\r%s\033[K\n" : "%s\n", progress_summary(r).c_str());
      std::fflush(stderr);
      return;
    }
    if (r.elapsed_s < kQuietFirst) return;
    if (*shown >= 0 && r.elapsed_s - *shown < (terminal ? kRedrawEvery : kPileEvery)) return;
    *shown = r.elapsed_s;
    std::fprintf(stderr, terminal ? "\r%s\033[K" : "%s\n", progress_line(r).c_str());
    std::fflush(stderr);
  };
}

}  // namespace scaleout::cli

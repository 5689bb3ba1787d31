// What `scaleout simulate` prints on stderr while a long simulation runs: messages sent against
// the work estimate, the simulated clock and the wall time.
#pragma once

#include <cstdint>
#include <string>

#include "sim/simulator.hpp"

namespace scaleout::cli {

// "simulating: 1,234,567 messages of about 13,000,000, 0.84 s simulated, 12 s" (before the first
// message, that none was sent yet).
std::string progress_line(const sim::ProgressReport& r);
// "simulated 1,234,567 messages (estimated about 13,000,000) in 12.3 s".
std::string progress_summary(const sim::ProgressReport& r);

// 1234567 -> "1,234,567".
std::string grouped(std::uint64_t n);

// `--progress`: auto (on a terminal, one line redrawn), always (lines, even into a file or a
// pipe), never. Returns an empty function for never, or for auto off a terminal.
sim::OnProgress progress_printer(const std::string& mode);

}  // namespace scaleout::cli

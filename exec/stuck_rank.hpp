// Naming the rank that held a failed run up: a rank that stops sending makes its peers time out,
// and their errors ("Read timeout [127.0.0.1]:port", or "no receive from rank 1") would otherwise
// be all the user sees, naming the ranks that waited rather than the one they waited on.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace scaleout::exec {

// `running`: the ranks still running (pid -> rank); `errors`: each rank's own error ("" when none).
// Returns "rank R sent nothing for T s (why)" for a rank still running whose process is stopped,
// or, else, for the still running rank without an error of its own that the other ranks' errors
// name most as the peer they waited on; "" when no rank is clearly the one.
std::string stuck_rank(const std::map<pid_t, int>& running, const std::vector<std::string>& errors,
                       std::chrono::milliseconds timeout);

// For ranks launched elsewhere (no process to look at): among `quiet` (ranks that left neither an
// error nor a report), the one the other ranks' errors name most as the peer they waited on, as
// "rank R sent nothing for T s (ranks ... waited on it)"; "" when none is named.
std::string most_waited_on(const std::vector<int>& quiet, const std::vector<std::string>& errors,
                           std::chrono::milliseconds timeout);

// Whether process `pid` is stopped (SIGSTOP, or a debugger's trace stop), from /proc.
bool process_stopped(pid_t pid);

}  // namespace scaleout::exec

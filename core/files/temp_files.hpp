// Temporary files and directories (a simulation's result file, a run's directory) are made under
// $TMPDIR (else /tmp) and removed when the process is stopped by SIGINT, SIGTERM or SIGHUP, as
// they are when it ends normally. The removal on a signal is async-signal-safe: it kills and
// reaps the tracked child processes (which could still write there), then unlinks what is
// registered, with plain system calls.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>

namespace scaleout::core {

// $TMPDIR when set and not empty, else /tmp.
std::filesystem::path temp_root();

// Makes a file / a directory named "<prefix>-XXXXXX" under temp_root() and registers it for
// removal on a signal. Throws std::runtime_error naming the folder when it cannot.
std::string make_temp_file(const std::string& prefix);
std::string make_temp_dir(const std::string& prefix);

// Registers a path made elsewhere (an atomic write's temporary file) / forgets it.
void register_temp(const std::string& path);
void forget_temp(const std::string& path);

// Removes a temporary path (a directory with everything in it) and forgets it.
void remove_temp(const std::string& path);

// Child processes killed (SIGKILL) and reaped before the removal on a signal.
void track_child(pid_t pid);
void untrack_child(pid_t pid);

// Installs the handlers for SIGINT, SIGTERM and SIGHUP: kill and reap the tracked children,
// remove the registered paths, then end by the same signal (default action). Only this process's
// own registrations are acted on: a forked child inherits the handler but removes nothing.
void install_temp_cleanup();

}  // namespace scaleout::core

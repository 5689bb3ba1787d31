// Running a shell command from a test and capturing what it printed (stdout and stderr).
#pragma once

#include <string>

namespace scaleout::testing {

struct Output {
  int code = -1;  // exit code; -1 when killed by a signal
  std::string text;
};

Output shell(const std::string& command);

}  // namespace scaleout::testing

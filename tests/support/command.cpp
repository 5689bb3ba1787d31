#include "tests/support/command.hpp"

#include <sys/wait.h>

#include <array>
#include <cstdio>

namespace scaleout::testing {

Output shell(const std::string& command) {
  Output out;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return out;
  std::array<char, 4096> buf;
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), pipe))
    out.text.append(buf.data(), n);
  int status = ::pclose(pipe);
  out.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

}  // namespace scaleout::testing

// Errors a user can cause with their input: they name the file, line and field.
#pragma once

#include <stdexcept>
#include <string>

namespace scaleout::core {

// Thrown for any malformed plan, topology, workload or command-line value. The CLI prints what()
// and exits with code 2. `line` is 1-based; 0 means "no line" (e.g. a file that does not exist).
class InputError : public std::runtime_error {
 public:
  InputError(const std::string& file, int line, const std::string& field, const std::string& what);
  // An error already formatted elsewhere (e.g. carried back from a child process).
  explicit InputError(const std::string& formatted) : std::runtime_error(formatted), line_(0) {}

  const std::string& file() const { return file_; }
  int line() const { return line_; }
  const std::string& field() const { return field_; }

 private:
  std::string file_;
  int line_;
  std::string field_;
};

}  // namespace scaleout::core

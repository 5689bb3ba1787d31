#include "core/plan/input_error.hpp"

namespace scaleout::core {

namespace {
std::string format(const std::string& file, int line, const std::string& field,
                   const std::string& what) {
  std::string out = file.empty() ? std::string("<input>") : file;
  if (line > 0) out += ":" + std::to_string(line);
  out += ": ";
  if (!field.empty()) out += "field '" + field + "': ";
  return out + what;
}
}  // namespace

InputError::InputError(const std::string& file, int line, const std::string& field,
                       const std::string& what)
    : std::runtime_error(format(file, line, field, what)),
      file_(file),
      line_(line),
      field_(field) {}

}  // namespace scaleout::core

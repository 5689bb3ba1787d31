// Writing results so that a reader never sees half a file: write a temporary file beside the
// target, then rename it into place.
#pragma once

#include <string>

namespace scaleout::core {

// Throws std::runtime_error naming the path when the file cannot be written.
void write_file_atomic(const std::string& path, const std::string& content);

}  // namespace scaleout::core

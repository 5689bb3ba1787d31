// The bundled plans, topologies and models the window lists: where they are is
// core/files/bundled_data.hpp's (core::bundled_path); this lists a folder's plans.
#pragma once

#include <string>
#include <vector>

#include "core/files/bundled_data.hpp"

namespace scaleout::gui {

// The .yaml files of a directory, sorted by name; empty when it cannot be read.
std::vector<std::string> yaml_files(const std::string& dir);

}  // namespace scaleout::gui

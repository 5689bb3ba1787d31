// Where the bundled plans, topologies and models are: beside the working directory (a checkout),
// else in the installed data directory (core/bundled_data.hpp).
#pragma once

#include <string>
#include <vector>

namespace scaleout::gui {

// `relative` ("topologies", "experiments/quickstart.yaml") under the working directory when it
// exists there, else under core::bundled_data_dir().
std::string bundled_path(const std::string& relative);

// The .yaml files of a directory, sorted by name; empty when it cannot be read.
std::vector<std::string> yaml_files(const std::string& dir);

}  // namespace scaleout::gui

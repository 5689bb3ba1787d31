// Where the bundled models, topologies and experiments are, for the installed programs and for a
// build inside a checkout alike. Never a path compiled into the program: a package is built in one
// place and installed in another.
#pragma once

#include <optional>
#include <string>

namespace scaleout::core {

// The directory holding models/, topologies/ and experiments/: the one the program named
// (set_bundled_data_dir: the programs pass on $SCALEOUT_DATA_DIR); else <prefix>/share/scaleout
// beside the running program (<prefix>/bin); else the nearest directory above the program that
// holds experiments/quickstart.yaml (a build tree inside a checkout). Nothing when none exists.
std::optional<std::string> bundled_data_dir();

// Names the directory bundled_data_dir() returns from now on (empty: look for it as above). A
// program calls it once, before it loads anything.
void set_bundled_data_dir(const std::string& dir);

// `relative` ("experiments/quickstart.yaml") as given when it exists from the working directory or
// is absolute; else under bundled_data_dir() when it exists there; else as given (so the error
// that follows names what the user typed).
std::string bundled_path(const std::string& relative);

}  // namespace scaleout::core

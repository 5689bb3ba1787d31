// Reading a sweep CSV (`scaleout sweep -o sweep.csv`) back into curves, for headless rendering.
#pragma once

#include <string>

#include "gui/curves.hpp"

namespace scaleout::gui {

// Columns are found by name in the header (the contract's eight, plus compute_s, comm_s and
// exposed_comm_s when present). Throws core::InputError naming the file and line.
Curves read_sweep_csv(const std::string& path);

}  // namespace scaleout::gui

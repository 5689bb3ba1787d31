// Result files for the results-table tests: `scaleout simulate`'s own output on the quickstart
// plan, made into a "measured" run that is `slowdown` times slower.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace scaleout::gui {

// Writes dir/name and returns its JSON. engine "analytic" results are relabelled "cpu" (as a
// measured run); "sim" ones keep their engine and their links.
nlohmann::json write_result(const std::filesystem::path& dir, const std::string& name,
                            const std::string& strategy, int workers, double slowdown,
                            const std::string& engine = "analytic");

}  // namespace scaleout::gui

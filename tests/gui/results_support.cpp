#include "tests/gui/results_support.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/gui/gui_support.hpp"

namespace scaleout::gui {

nlohmann::json write_result(const std::filesystem::path& dir, const std::string& name,
                            const std::string& strategy, int workers, double slowdown,
                            const std::string& engine) {
  std::filesystem::create_directories(dir);
  std::filesystem::path path = dir / name;
  auto o = cli("simulate " + kQuickstart + " --engine " + engine + " --workers " +
               std::to_string(workers) + " --strategy " + strategy + " -o '" + path.string() +
               "' --json");
  EXPECT_EQ(o.code, 0) << o.text;
  auto j = nlohmann::json::parse(std::ifstream(path));
  if (engine == "analytic") j["engine"] = "cpu";
  j["throughput_samples_per_s"] = j["throughput_samples_per_s"].get<double>() / slowdown;
  j["step_time_s"] = j["step_time_s"].get<double>() * slowdown;
  std::ofstream(path) << j.dump(2);
  return j;
}

}  // namespace scaleout::gui

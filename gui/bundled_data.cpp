#include "gui/bundled_data.hpp"

#include <algorithm>
#include <filesystem>

namespace scaleout::gui {

namespace fs = std::filesystem;

std::vector<std::string> yaml_files(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".yaml") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace scaleout::gui

#include "core/files/bundled_data.hpp"

#include <filesystem>
#include <system_error>

namespace scaleout::core {

namespace fs = std::filesystem;

namespace {

std::optional<fs::path> running_program_dir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec || exe.empty()) return std::nullopt;
  return exe.parent_path();
}

bool holds_bundled_files(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "experiments" / "quickstart.yaml", ec);
}

std::string& named_data_dir() {
  static std::string dir;
  return dir;
}

}  // namespace

void set_bundled_data_dir(const std::string& dir) { named_data_dir() = dir; }

std::optional<std::string> bundled_data_dir() {
  if (!named_data_dir().empty()) return named_data_dir();
  auto bin = running_program_dir();
  if (!bin) return std::nullopt;
  fs::path installed = bin->parent_path() / "share" / "scaleout";
  if (holds_bundled_files(installed)) return installed.string();
  for (fs::path dir = *bin; !dir.empty(); dir = dir.parent_path()) {
    if (holds_bundled_files(dir)) return dir.string();
    if (dir == dir.root_path()) break;
  }
  return std::nullopt;
}

std::string bundled_path(const std::string& relative) {
  std::error_code ec;
  fs::path given(relative);
  if (given.is_absolute() || fs::exists(given, ec)) return relative;
  auto dir = bundled_data_dir();
  if (!dir) return relative;
  fs::path candidate = fs::path(*dir) / given;
  return fs::exists(candidate, ec) ? candidate.string() : relative;
}

}  // namespace scaleout::core

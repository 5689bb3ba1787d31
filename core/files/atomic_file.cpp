#include "core/files/atomic_file.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "core/files/temp_files.hpp"

namespace scaleout::core {

void write_file_atomic(const std::string& path, const std::string& content) {
  std::filesystem::path target(path);
  std::string tmp = (target.parent_path() /
                     ("." + target.filename().string() + ".tmp" + std::to_string(::getpid())))
                        .string();
  register_temp(tmp);  // removed if the process is stopped while writing
  struct Forget {
    std::string path;
    ~Forget() { forget_temp(path); }
  } forget{tmp};
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write " + path + " (cannot create " + tmp + ")");
    out << content;
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw std::runtime_error("cannot write " + path);
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, target, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw std::runtime_error("cannot write " + path + ": " + ec.message());
  }
}

}  // namespace scaleout::core

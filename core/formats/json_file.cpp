#include "core/formats/json_file.hpp"

#include <fstream>

#include "core/plan/input_error.hpp"

namespace scaleout::core {

nlohmann::json read_json_object(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, 0, "", "cannot open file (does it exist?)");
  nlohmann::json config;
  try {
    config = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path, 0, "", std::string("not a JSON config: ") + e.what());
  }
  if (!config.is_object()) throw InputError(path, 0, "", "expected a JSON object");
  return config;
}

}  // namespace scaleout::core

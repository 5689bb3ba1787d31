// A JSON configuration file read whole (Hugging Face's config.json, DeepSpeed's ds_config.json).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace scaleout::core {

// The file's JSON object. Throws InputError naming the file for one that cannot be opened, is not
// JSON ("not a JSON config: ...") or holds something other than an object.
nlohmann::json read_json_object(const std::string& path);

}  // namespace scaleout::core

// The cluster's `network_model`: a SimGrid model's name, or a mapping that also sets the model's
// latency factor, which multiplies every route's latency (LV08's own is 13.01):
//   network_model: lv08
//   network_model: { name: lv08, latency_factor: 1 }
#pragma once

#include "core/plan/plan.hpp"
#include "core/plan/yaml_reader.hpp"

namespace scaleout::core {

// Reads `network_model` of the cluster mapping `m` (default lv08) into c.network_model and
// c.latency_factor. Throws InputError naming file, line and field: an unknown name or key, a
// factor that is not a number from 0 to 1000, or a factor with `ib` (whose latency factors depend
// on the message size).
void read_network_model(YamlMap& m, Cluster& c);

}  // namespace scaleout::core

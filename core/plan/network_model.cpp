#include "core/plan/network_model.hpp"

#include "core/plan/input_error.hpp"

namespace scaleout::core {

namespace {
const std::vector<std::string> kModels = {"lv08", "cm02", "ib"};
}  // namespace

void read_network_model(YamlMap& m, Cluster& c) {
  if (!m.has("network_model") || !m.node()["network_model"].IsMap()) {
    c.network_model = m.get_choice("network_model", kModels, "lv08");
    return;
  }
  YAML::Node node = m.child("network_model");
  YamlMap model(node, m.file(), m.field("network_model"));
  c.network_model = model.get_choice("name", kModels);
  if (model.has("latency_factor")) {
    c.latency_factor = model.get_double("latency_factor", 0, 1000);
    c.latency_factor_line = line_of(model.child("latency_factor"));
    if (c.network_model == "ib")
      model.fail("latency_factor",
                 "applies to lv08 and cm02 only: ib's latency factors depend on the message "
                 "size (SimGrid's smpi/lat-factor)");
  }
  model.finish();
}

}  // namespace scaleout::core

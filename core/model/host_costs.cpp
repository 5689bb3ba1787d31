#include "core/model/host_costs.hpp"

#include "core/plan/plan_loader_extras.hpp"
#include "core/plan/units.hpp"

namespace scaleout::core {

HostCosts read_host_costs(YamlMap& parent) {
  YAML::Node node = parent.child("host");
  YamlMap m(node, parent.file(), parent.field("host"));
  HostCosts h;
  h.line = line_of(node);
  if (m.has("message_overhead"))
    h.message_overhead = m.get_quantity("message_overhead", Quantity::kTime);
  if (m.has("copy_rate")) h.copy_rate = m.get_quantity("copy_rate", Quantity::kBandwidth);
  if (m.has("sum_rate")) h.sum_rate = m.get_quantity("sum_rate", Quantity::kBandwidth);
  h.compensate_rate = read_elements_rate(m, "compensate_rate", h.compensate_rate);
  h.codec_rate = read_elements_rate(m, "codec_rate", h.codec_rate);
  m.finish();
  return h;
}

}  // namespace scaleout::core

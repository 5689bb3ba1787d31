#include "core/model/transport.hpp"

#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader_extras.hpp"
#include "core/plan/units.hpp"

namespace scaleout::core {

Transport read_transport(YamlMap& parent) {
  YAML::Node node = parent.child("transport");
  YamlMap m(node, parent.file(), parent.field("transport"));
  Transport t;
  t.line = line_of(node);
  t.kind = m.get_choice("kind", {"tcp", "rdma"}, "tcp") == "rdma" ? TransportKind::kRdma
                                                                  : TransportKind::kTcp;
  if (m.has("window")) {
    if (t.kind == TransportKind::kRdma)
      throw InputError(m.file(), line_of(m.node()["window"]), m.field("window"),
                       "RDMA moves without a TCP window: give a window with kind tcp");
    t.window = m.get_quantity("window", Quantity::kBytes);
  }
  if (m.has("eager_limit")) t.eager_limit = m.get_quantity("eager_limit", Quantity::kBytes, false);
  m.finish();
  return t;
}

}  // namespace scaleout::core

#include "core/plan_loader_extras.hpp"

namespace scaleout::core {

namespace {

using Kind = Training::Fusion::Kind;

Training::Fusion read_fusion(YamlMap& parent, bool buffer_given) {
  Training::Fusion f;
  if (!parent.has("fusion")) {
    parent.child("fusion", false);
    return f;
  }
  YAML::Node node = parent.child("fusion");
  f.line = line_of(node);
  if (!node.IsMap())
    parent.fail("fusion", "expected a mapping such as { kind: ddp, bucket_cap: 25MiB }");
  YamlMap m(node, parent.file(), parent.field("fusion"));
  std::string kind = m.get_choice("kind", {"legacy", "horovod", "ddp"});
  if (kind == "horovod") {
    f.kind = Kind::kHorovod;
    f.cycle_time = m.get_quantity("cycle_time", Quantity::kTime, f.cycle_time);
    f.threshold = m.get_quantity("threshold", Quantity::kBytes, f.threshold);
  } else if (kind == "ddp") {
    f.kind = Kind::kDdp;
    f.bucket_cap = m.get_quantity("bucket_cap", Quantity::kBytes, f.bucket_cap);
    f.first_bucket = m.get_quantity("first_bucket", Quantity::kBytes, f.first_bucket);
    if (f.first_bucket > f.bucket_cap)
      m.fail("first_bucket", "larger than bucket_cap (the first bucket is the small one)");
  }
  m.finish();
  if (f.kind != Kind::kLegacy && buffer_given)
    parent.fail("fusion_buffer", "is the legacy fusion's bucket size; with fusion kind " + kind +
                                     " give the size inside training.fusion");
  return f;
}

}  // namespace

void read_training_extras(YamlMap& m, Training& t) {
  t.fusion = read_fusion(m, t.fusion_line > 0);
  if (m.has("efficiency")) {
    t.efficiency = m.get_double("efficiency", 1e-6, 1.0);
    t.efficiency_line = line_of(m.node()["efficiency"]);
  }
  if (m.has("global_batch")) {
    if (t.batch_line > 0)
      m.fail("global_batch", "give either batch_per_worker or global_batch, not both");
    t.global_batch = m.get_int("global_batch", 1);
    t.global_batch_line = line_of(m.node()["global_batch"]);
  }
}

void read_measured_throughput(YamlMap& m, Workload& w) {
  if (!m.has("measured_throughput")) {
    m.child("measured_throughput", false);
    return;
  }
  YAML::Node node = m.child("measured_throughput");
  w.measured_line = line_of(node);
  if (!node.IsMap() || node.size() == 0)
    m.fail("measured_throughput",
           "expected samples/s per device name, e.g. { V100: 360, P100: 220 }");
  YamlMap rates(node, m.file(), m.field("measured_throughput"));
  for (const auto& kv : node) {
    std::string name = kv.first.Scalar();
    w.measured_throughput.push_back({name, rates.get_double(name, 1e-9, 1e12)});
  }
  rates.finish();
}

}  // namespace scaleout::core

#include "gui/plan_fields.hpp"

#include <yaml-cpp/yaml.h>

#include <cassert>
#include <cstdio>

#include "core/plan/yaml_reader.hpp"

namespace scaleout::gui {

namespace {

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// A one-key mapping read with the loader's YamlMap, so that values and errors are the YAML's.
// `context` is the field's parent ("nic"), as the loader names it.
core::YamlMap one_value(const std::string& context, const std::string& key,
                        const std::string& text) {
  YAML::Node node(YAML::NodeType::Map);
  node[key] = text;
  return core::YamlMap(node, "", context);
}

PlanField text_field(std::string context, std::string key, std::string label,
                     std::function<std::string(const WhatIf&)> get,
                     std::function<void(WhatIf&, core::YamlMap&, const std::string&)> read) {
  std::string full = context.empty() ? key : context + "." + key;
  return {full,
          std::move(label),
          PlanField::Kind::kText,
          {},
          std::move(get),
          [context, key, read](WhatIf& w, const std::string& text) {
            core::YamlMap m = one_value(context, key, text);
            read(w, m, key);
            m.finish();
          }};
}

// A choice among `choices`, read as the loader reads it.
PlanField choice_field(std::string context, std::string key, std::string label,
                       std::vector<std::string> choices,
                       std::function<std::string(const WhatIf&)> get,
                       std::function<void(WhatIf&, const std::string&)> apply) {
  std::string full = context + "." + key;
  return {full,
          std::move(label),
          PlanField::Kind::kChoice,
          choices,
          std::move(get),
          [context, key, choices, apply](WhatIf& w, const std::string& text) {
            core::YamlMap m = one_value(context, key, text);
            apply(w, m.get_choice(key, choices));
          }};
}

void add_training_fields(std::vector<PlanField>& f) {
  using core::Quantity;
  f.push_back(text_field(
      "sweep", "max_workers", "workers up to",
      [](const WhatIf& w) { return std::to_string(w.max_workers); },
      [](WhatIf& w, core::YamlMap& m, const std::string& k) {
        w.max_workers = static_cast<int>(m.get_int(k, 2));
        if (w.max_workers > 65536) m.fail(k, "at most 65536 in the window");
      }));
  f.push_back(text_field(
      "training", "batch_per_worker", "batch per worker",
      [](const WhatIf& w) { return std::to_string(w.plan.training.batch_per_worker); },
      [](WhatIf& w, core::YamlMap& m, const std::string& k) {
        w.plan.training.batch_per_worker = static_cast<int>(m.get_int(k, 1));
      }));
  // A plan that gives the global batch derives each replica's share from it at every size: an
  // edited batch per worker would be overwritten, so the field is off rather than ignored.
  f.back().why_off = [](const WhatIf& w) {
    return w.plan.training.global_batch > 0
               ? "the plan gives training.global_batch (" +
                     std::to_string(w.plan.training.global_batch) +
                     "): each data-parallel replica's batch follows from it"
               : std::string();
  };
  f.push_back(
      {"training.gradient_precision",
       "gradient precision",
       PlanField::Kind::kChoice,
       {"fp32", "fp16", "bf16"},
       [](const WhatIf& w) { return w.plan.training.gradient_precision; },
       [](WhatIf& w, const std::string& text) {
         core::YamlMap m = one_value("training", "gradient_precision", text);
         auto& t = w.plan.training;
         t.gradient_precision = m.get_choice("gradient_precision", {"fp32", "fp16", "bf16"});
         t.gradient_bytes_per_element = t.gradient_precision == "fp32" ? 4 : 2;
       }});
  f.push_back(
      {"training.overlap",
       "overlap exchange with backward",
       PlanField::Kind::kBool,
       {},
       [](const WhatIf& w) { return std::string(w.plan.training.overlap ? "true" : "false"); },
       [](WhatIf& w, const std::string& text) { w.plan.training.overlap = text == "true"; }});
  f.push_back(text_field(
      "training", "fusion_buffer", "fusion buffer",
      [](const WhatIf& w) { return core::format_bytes(w.plan.training.fusion_buffer); },
      [](WhatIf& w, core::YamlMap& m, const std::string& k) {
        w.plan.training.fusion_buffer = m.get_quantity(k, Quantity::kBytes);
        // Every keystroke recomputes: "1" on the way to "16MiB" would be 1-byte buckets, a
        // hundred million exchanges for a model without layers.
        if (w.plan.training.fusion_buffer < 64 * 1024) m.fail(k, "at least 64KiB in the window");
      }));
  f.back().why_off = [](const WhatIf& w) {
    bool legacy = w.plan.training.fusion.kind == core::Training::Fusion::Kind::kLegacy;
    return std::string(legacy ? ""
                              : "the legacy fusion's bucket size; this fusion kind has its own");
  };
}

void add_cluster_fields(std::vector<PlanField>& f) {
  using core::Quantity;
  f.push_back(text_field(
      "cluster", "devices_per_node", "devices per node",
      [](const WhatIf& w) { return std::to_string(w.plan.cluster.devices_per_node); },
      [](WhatIf& w, core::YamlMap& m, const std::string& k) {
        w.plan.cluster.devices_per_node = static_cast<int>(m.get_int(k, 1));
      }));
  f.push_back(text_field(
      "intra_node", "bandwidth", "intra-node bandwidth",
      [](const WhatIf& w) { return format_bytes_per_s(w.plan.cluster.intra_node.bandwidth); },
      [](WhatIf& w, core::YamlMap& m, const std::string& k) {
        w.plan.cluster.intra_node.bandwidth = m.get_quantity(k, Quantity::kBandwidth);
      }));
  f.push_back(text_field(
      "nic", "bandwidth", "NIC bandwidth",
      [](const WhatIf& w) { return format_bandwidth(w.plan.cluster.nic.bandwidth); },
      [](WhatIf& w, core::YamlMap& m, const std::string& k) {
        w.plan.cluster.nic.bandwidth = m.get_quantity(k, Quantity::kBandwidth);
      }));
  f.push_back(text_field(
      "nic", "latency", "NIC latency",
      [](const WhatIf& w) { return format_time(w.plan.cluster.nic.latency); },
      [](WhatIf& w, core::YamlMap& m, const std::string& k) {
        w.plan.cluster.nic.latency = m.get_quantity(k, Quantity::kTime, /*positive=*/false);
      }));
  f.push_back(text_field(
      "device", "flops", "device peak",
      [](const WhatIf& w) { return format_flops(w.plan.cluster.device.flops); },
      [](WhatIf& w, core::YamlMap& m, const std::string& k) {
        w.plan.cluster.device.flops = m.get_quantity(k, Quantity::kFlops);
      }));
  f.push_back(text_field(
      "workload", "efficiency", "achieved share of peak",
      [](const WhatIf& w) { return fmt("%g", w.plan.workload.efficiency); },
      [](WhatIf& w, core::YamlMap& m, const std::string& k) {
        w.plan.workload.efficiency = m.get_double(k, 1e-6, 1.0);
      }));
}

void add_strategy_fields(std::vector<PlanField>& f) {
  f.push_back(choice_field(
      "strategy", "kind", "strategy shown", core::strategy_names(),
      [](const WhatIf& w) { return std::string(core::strategy_name(w.plan.strategy.kind)); },
      [](WhatIf& w, const std::string& v) {
        w.plan.strategy.kind = *core::parse_strategy_kind(v);  // the choice is one of the names
      }));
  f.back().hint =
      "the strategy that the timeline of a point and the topology's colours show; the curves "
      "show ps, ring, torus2d and hierarchical_ring whatever it is";
  f.push_back(text_field(
      "strategy", "chunk", "ring chunk",
      [](const WhatIf& w) { return core::format_bytes(w.plan.strategy.chunk); },
      [](WhatIf& w, core::YamlMap& m, const std::string& k) {
        w.plan.strategy.chunk = m.get_quantity(k, core::Quantity::kBytes);
      }));
  f.push_back(torus_grid_field());
  f.push_back(text_field(
      "strategy", "servers", "parameter servers (ps)",
      [](const WhatIf& w) { return std::to_string(w.plan.strategy.ps_servers); },
      [](WhatIf& w, core::YamlMap& m, const std::string& k) {
        w.plan.strategy.ps_servers = static_cast<int>(m.get_int(k, 1));
      }));
  f.push_back(choice_field(
      "strategy", "placement", "server placement (ps)", {"dedicated", "colocated"},
      [](const WhatIf& w) {
        bool colocated = w.plan.strategy.ps_placement == core::PsPlacement::kColocated;
        return std::string(colocated ? "colocated" : "dedicated");
      },
      [](WhatIf& w, const std::string& v) {
        w.plan.strategy.ps_placement =
            v == "colocated" ? core::PsPlacement::kColocated : core::PsPlacement::kDedicated;
      }));
}

// A plan with `parallelism:` exchanges each stage's gradient once the pipeline drains, as
// Megatron-LM does: the data-parallel exchange's fusion, overlap and compression are not its.
void off_for_splits(std::vector<PlanField>& fields) {
  auto starts = [](const std::string& key, const char* prefix) {
    return key.rfind(prefix, 0) == 0;
  };
  for (auto& f : fields) {
    if (f.key != "training.overlap" && f.key != "training.fusion_buffer" &&
        !starts(f.key, "training.fusion.") && !starts(f.key, "training.compression."))
      continue;
    auto before = f.why_off;
    f.why_off = [before](const WhatIf& w) {
      if (w.plan.parallelism)
        return std::string(
            "a plan with parallelism: exchanges each stage's gradient once the pipeline drains: "
            "the data-parallel exchange's fusion, overlap and compression are not its");
      return before ? before(w) : std::string();
    };
  }
}

std::vector<PlanField> make_fields() {
  std::vector<PlanField> f;
  add_training_fields(f);
  add_cluster_fields(f);
  add_strategy_fields(f);
  add_knob_fields(f);
  add_compression_fields(f);
  add_reliability_fields(f);
  add_parallelism_fields(f);
  add_network_fields(f);
  off_for_splits(f);
  return f;
}

}  // namespace

const std::vector<PlanField>& plan_fields() {
  static const std::vector<PlanField> fields = make_fields();
  return fields;
}

const std::vector<std::string>& plan_field_groups() {
  static const std::vector<std::string> groups = {"Workload",    "Training", "Strategy",
                                                  "Parallelism", "Cluster",  "Network"};
  return groups;
}

std::string plan_field_group(const PlanField& field) {
  auto starts = [&](const char* prefix) { return field.key.rfind(prefix, 0) == 0; };
  if (starts("workload.")) return "Workload";
  if (starts("training.") || starts("sweep.") || starts("checkpoint.") || starts("reliability."))
    return "Training";
  if (starts("strategy.")) return "Strategy";
  if (starts("parallelism.")) return "Parallelism";
  if (starts("nic.") || starts("network.") || starts("transport.")) return "Network";
  return "Cluster";
}

const PlanField& plan_field(const std::string& key) {
  for (const auto& f : plan_fields())
    if (f.key == key) return f;
  assert(false && "unknown plan field");
  return plan_fields().front();
}

std::string format_bandwidth(double bytes_per_s) {
  double bits = bytes_per_s * 8;
  if (bits >= 1e9) return fmt("%gGbps", bits / 1e9);
  if (bits >= 1e6) return fmt("%gMbps", bits / 1e6);
  return fmt("%gbps", bits);
}

std::string format_bytes_per_s(double bytes_per_s) {
  if (bytes_per_s >= 1e9) return fmt("%gGB/s", bytes_per_s / 1e9);
  return fmt("%gMB/s", bytes_per_s / 1e6);
}

std::string format_time(double seconds) {
  if (seconds == 0) return "0s";
  if (seconds < 1e-6) return fmt("%gns", seconds * 1e9);
  if (seconds < 1e-3) return fmt("%gus", seconds * 1e6);
  if (seconds < 1) return fmt("%gms", seconds * 1e3);
  return fmt("%gs", seconds);
}

std::string format_flops(double flops) {
  if (flops >= 1e12) return fmt("%gTFLOPS", flops / 1e12);
  if (flops >= 1e9) return fmt("%gGFLOPS", flops / 1e9);
  return fmt("%gFLOPS", flops);
}

}  // namespace scaleout::gui

// The fields of gradient fusion, the training's efficiency, the torus grid and the parameter
// server's synchronisation, each edited as the same edit of the plan's YAML.
#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"
#include "core/plan/units.hpp"
#include "gui/plan_fields.hpp"
#include "gui/plan_yaml_edit.hpp"

namespace scaleout::gui {

namespace {

using core::Plan;
using Fusion = core::Training::Fusion;

const char* fusion_name(Fusion::Kind k) {
  return k == Fusion::Kind::kHorovod ? "horovod" : k == Fusion::Kind::kDdp ? "ddp" : "legacy";
}

// A knob of training.fusion, read when the fusion kind is `kind`.
PlanField fusion_knob(const std::string& knob, std::string label, Fusion::Kind kind,
                      FieldGetter get, PlanCheck check = {}) {
  PlanField f = yaml_text(
      "training.fusion." + knob, std::move(label), std::move(get),
      [knob](YAML::Node& root, const Plan&, const std::string& text) {
        set_or_remove(yaml_at(root, {"training", "fusion"}), knob, text);
      },
      std::move(check));
  f.why_off = off_unless([kind](const Plan& p) { return p.training.fusion.kind == kind; },
                         std::string("applies to fusion kind ") + fusion_name(kind));
  return f;
}

void add_fusion_fields(std::vector<PlanField>& f) {
  f.push_back(yaml_field(
      "training.fusion.kind", "gradient fusion", PlanField::Kind::kChoice,
      {"legacy", "horovod", "ddp"},
      [](const WhatIf& w) { return std::string(fusion_name(w.plan.training.fusion.kind)); },
      [](YAML::Node& root, const Plan& plan, const std::string& text) {
        if (text == fusion_name(plan.training.fusion.kind)) return;  // keep its knobs
        YAML::Node t = yaml_at(root, {"training"});
        if (text == "legacy") {
          t.remove("fusion");
          t["fusion_buffer"] = exact(plan.training.fusion_buffer, "B");
        } else {
          t.remove("fusion_buffer");
          YAML::Node fusion(YAML::NodeType::Map);
          fusion["kind"] = text;  // its knobs at the loader's defaults
          t["fusion"] = fusion;
        }
      }));
  f.push_back(
      fusion_knob("cycle_time", "fusion cycle time", Fusion::Kind::kHorovod,
                  [](const WhatIf& w) { return format_time(w.plan.training.fusion.cycle_time); }));
  f.push_back(fusion_knob(
      "threshold", "fusion threshold", Fusion::Kind::kHorovod,
      [](const WhatIf& w) { return core::format_bytes(w.plan.training.fusion.threshold); },
      at_least_64kib("training.fusion.threshold",
                     [](const Plan& p) { return p.training.fusion.threshold; })));
  f.push_back(fusion_knob(
      "bucket_cap", "bucket cap", Fusion::Kind::kDdp,
      [](const WhatIf& w) { return core::format_bytes(w.plan.training.fusion.bucket_cap); },
      at_least_64kib("training.fusion.bucket_cap",
                     [](const Plan& p) { return p.training.fusion.bucket_cap; })));
  f.push_back(fusion_knob(
      "first_bucket", "first bucket", Fusion::Kind::kDdp,
      [](const WhatIf& w) { return core::format_bytes(w.plan.training.fusion.first_bucket); },
      at_least_64kib("training.fusion.first_bucket",
                     [](const Plan& p) { return p.training.fusion.first_bucket; })));
  f.push_back(yaml_text(
      "training.efficiency", "efficiency override",
      [](const WhatIf& w) {
        const auto& e = w.plan.training.efficiency;
        return e ? exact(*e, "") : std::string();
      },
      [](YAML::Node& root, const Plan&, const std::string& text) {
        set_or_remove(yaml_at(root, {"training"}), "efficiency", text);
      }));
}

// A parameter-server knob given as a whole number; empty text leaves it out.
PlanField ps_number(const std::string& knob, std::string label, FieldGetter get) {
  return yaml_text("strategy." + knob, std::move(label), std::move(get),
                   [knob](YAML::Node& root, const Plan& plan, const std::string& text) {
                     set_or_remove(knob_mapping(root, plan, knob, core::StrategyKind::kPs), knob,
                                   text);
                   });
}

bool is_async(const Plan& p) { return p.strategy.ps_mode == core::PsMode::kAsync; }

void add_ps_fields(std::vector<PlanField>& f) {
  f.push_back(yaml_field(
      "strategy.mode", "mode (ps)", PlanField::Kind::kChoice, {"sync", "async"},
      [](const WhatIf& w) { return std::string(is_async(w.plan) ? "async" : "sync"); },
      [](YAML::Node& root, const Plan& plan, const std::string& text) {
        YAML::Node m = knob_mapping(root, plan, "mode", core::StrategyKind::kPs);
        m["mode"] = text;
        // The knobs of the other mode are off (the fields say so): leave them out.
        for (const char* knob : {"replicas_to_aggregate", "softsync", "staleness_bound"})
          m.remove(knob);
      }));
  f.push_back(ps_number("replicas_to_aggregate", "aggregate (ps)", [](const WhatIf& w) {
    int r = w.plan.strategy.replicas_to_aggregate;
    return r > 0 ? std::to_string(r) : std::string();
  }));
  f.back().why_off =
      off_unless([](const Plan& p) { return !is_async(p); }, "backup workers apply to mode: sync");
  f.back().hint =
      "replicas_to_aggregate: the gradients a step waits for; the other workers are backup "
      "workers (empty: all)";
  f.push_back(ps_number("softsync", "softsync (ps)", [](const WhatIf& w) {
    int s = w.plan.strategy.softsync;
    return s > 0 ? std::to_string(s) : std::string();
  }));
  f.back().why_off =
      off_unless([](const Plan& p) { return !is_async(p); }, "softsync applies to mode: sync");
  f.push_back(ps_number("staleness_bound", "staleness bound (ps)", [](const WhatIf& w) {
    int s = w.plan.strategy.staleness_bound;
    return s >= 0 ? std::to_string(s) : std::string();
  }));
  f.back().why_off =
      off_unless(is_async, "bounded staleness applies to mode: async (empty: unbounded)");
  f.push_back(yaml_field(
      "strategy.local_aggregation", "local aggregation (ps)", PlanField::Kind::kChoice,
      {"none", "node"},
      [](const WhatIf& w) {
        bool node = w.plan.strategy.ps_local_aggregation == core::PsAggregation::kNode;
        return std::string(node ? "node" : "none");
      },
      [](YAML::Node& root, const Plan& plan, const std::string& text) {
        knob_mapping(root, plan, "local_aggregation",
                     core::StrategyKind::kPs)["local_aggregation"] = text;
      }));
}

}  // namespace

// The torus grid: "XxY" (row length x rows) or auto (the most square grid). A grid fits one
// worker count, the plan's training.workers; the other sizes of the curves choose their own.
PlanField torus_grid_field() {
  PlanField f = yaml_text(
      "strategy.grid", "torus grid (XxY)",
      [](const WhatIf& w) {
        const auto& g = w.plan.strategy.grid;
        return g ? pair_text((*g)[0], (*g)[1]) : std::string("auto");
      },
      [](YAML::Node& root, const Plan& plan, const std::string& text) {
        YAML::Node m = knob_mapping(root, plan, "grid", core::StrategyKind::kTorus2d);
        if (text.empty() || text == "auto")
          m.remove("grid");
        else
          m["grid"] = pair_node(text);
      },
      [](const Plan& p) {
        // The loader checks a grid against the workers only when the plan's kind is torus2d;
        // the torus2d curve uses it whatever the plan's kind.
        Plan probe = p;
        probe.strategy.kind = core::StrategyKind::kTorus2d;
        probe.strategy.grid_line = 0;
        try {
          core::validate_plan(probe);
        } catch (const core::InputError& e) {
          throw core::InputError(loader_message(e));
        }
      });
  f.hint =
      "the torus2d grid at the plan's training.workers: row length x rows, or auto; the curves' "
      "other sizes use the most square grid";
  return f;
}

void add_knob_fields(std::vector<PlanField>& f) {
  add_fusion_fields(f);
  add_ps_fields(f);
}

}  // namespace scaleout::gui

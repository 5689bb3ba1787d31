// The fields of a long run under failures: the checkpoint interval and a node's mean time between
// failures, each edited as the same edit of the plan's YAML. They apply to plans with failure
// rates (`reliability:`), whose goodput the window charts.
#include "gui/plan_fields.hpp"
#include "gui/plan_yaml_edit.hpp"

namespace scaleout::gui {

namespace {

using core::Plan;

bool has_rates(const Plan& p) { return p.reliability.has_value(); }

PlanField checkpoint_every_field() {
  PlanField f = yaml_text(
      "checkpoint.every", "checkpoint every",
      [](const WhatIf& w) {
        const core::Resilience& r = w.plan.resilience;
        if (r.checkpoint_every > 0) return std::to_string(r.checkpoint_every);
        return r.checkpoint_every_s > 0 ? exact(r.checkpoint_every_s, "s") : std::string();
      },
      [](YAML::Node& root, const Plan&, const std::string& text) {
        if (text.empty()) {
          root.remove("checkpoint");  // no checkpoints: a failure restarts the run
          return;
        }
        yaml_at(root, {"checkpoint"})["every"] = text;
      });
  f.why_off = off_unless(has_rates, "applies to plans with failure rates (reliability:)");
  f.hint =
      "steps, or a time such as 30min, between checkpoints; empty: none. Each point of the "
      "goodput chart names the best interval at its size";
  return f;
}

PlanField node_mtbf_field() {
  PlanField f = yaml_text(
      "reliability.node_mtbf", "node MTBF",
      [](const WhatIf& w) {
        const auto& r = w.plan.reliability;
        return r && r->node_mtbf > 0 ? exact(r->node_mtbf, "s") : std::string();
      },
      [](YAML::Node& root, const Plan&, const std::string& text) {
        set_or_remove(yaml_at(root, {"reliability"}), "node_mtbf", text);
      });
  f.why_off = off_unless(has_rates, "applies to plans with failure rates (reliability:)");
  f.hint = "each node's mean time between failures, such as 150d; empty: nodes never fail";
  return f;
}

}  // namespace

void add_reliability_fields(std::vector<PlanField>& f) {
  f.push_back(checkpoint_every_field());
  f.push_back(node_mtbf_field());
}

}  // namespace scaleout::gui

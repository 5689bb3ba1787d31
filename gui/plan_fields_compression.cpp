// The fields of gradient compression (`training.compression`) and of a delay-compensated
// asynchronous parameter server (`strategy.delay_compensation`), each edited as the same edit of
// the plan's YAML.
#include "core/codecs/compression.hpp"
#include "core/plan/units.hpp"
#include "gui/plan_fields.hpp"
#include "gui/plan_yaml_edit.hpp"

namespace scaleout::gui {

namespace {

using core::CompressionKind;
using core::Plan;

bool sparse(const Plan& p) { return p.training.compression.sparse(); }
bool quantized(const Plan& p) { return p.training.compression.quantized(); }

// training.compression.<knob>, applying while `applies`.
PlanField compression_knob(const std::string& knob, std::string label, PlanField::Kind kind,
                           FieldGetter get, std::function<bool(const Plan&)> applies,
                           std::string why_off, std::string hint) {
  PlanField f =
      yaml_field("training.compression." + knob, std::move(label), kind, {}, std::move(get),
                 [knob](YAML::Node& root, const Plan&, const std::string& text) {
                   set_or_remove(yaml_at(root, {"training", "compression"}), knob, text);
                 });
  f.why_off = off_unless(std::move(applies), std::move(why_off));
  f.hint = std::move(hint);
  return f;
}

void add_compression_kind(std::vector<PlanField>& f) {
  std::vector<std::string> kinds = {"none", "fp16",   "topk",     "randomk",
                                    "int8", "onebit", "powersgd", "quantize"};
  f.push_back(yaml_field(
      "training.compression.kind", "gradient compression", PlanField::Kind::kChoice, kinds,
      [](const WhatIf& w) {
        return std::string(core::compression_name(w.plan.training.compression.kind));
      },
      [](YAML::Node& root, const Plan& plan, const std::string& text) {
        if (text == core::compression_name(plan.training.compression.kind)) return;
        YAML::Node t = yaml_at(root, {"training"});
        t.remove("compression");
        if (text == "none") return;
        YAML::Node c(YAML::NodeType::Map);
        c["kind"] = text;  // its settings at the loader's defaults
        t["compression"] = c;
      }));
  f.back().hint =
      "what crosses the wire: sparsified, quantized or low rank (error feedback keeps the rest)";
}

bool async_ps(const Plan& p) { return p.strategy.ps_mode == core::PsMode::kAsync; }
bool compensated(const Plan& p) { return p.strategy.delay_compensation.on; }

// strategy.delay_compensation.<knob> where the parameter server's knobs go; an empty lambda
// turns the compensation off.
PlanField compensation_knob(const std::string& knob, std::string label, FieldGetter get,
                            std::function<bool(const Plan&)> applies, std::string why_off,
                            std::string hint) {
  PlanField f = yaml_text("strategy.delay_compensation." + knob, std::move(label), std::move(get),
                          [knob](YAML::Node& root, const Plan& plan, const std::string& text) {
                            YAML::Node m = knob_mapping(root, plan, "delay_compensation",
                                                        core::StrategyKind::kPs);
                            if (knob == "lambda" && text.empty()) {
                              m.remove("delay_compensation");
                              return;
                            }
                            set_or_remove(yaml_at(m, {"delay_compensation"}), knob, text);
                          });
  f.why_off = off_unless(std::move(applies), std::move(why_off));
  f.hint = std::move(hint);
  return f;
}

void add_delay_compensation_fields(std::vector<PlanField>& f) {
  f.push_back(compensation_knob(
      "lambda", "delay compensation λ (ps)",
      [](const WhatIf& w) {
        const auto& dc = w.plan.strategy.delay_compensation;
        return dc.on ? exact(dc.lambda, "") : std::string();
      },
      async_ps, "delay compensation applies to mode: async",
      "DC-ASGD: the server compensates each stale gradient (empty: off)"));
  f.push_back(compensation_knob(
      "learning_rate", "server learning rate (ps)",
      [](const WhatIf& w) {
        const auto& dc = w.plan.strategy.delay_compensation;
        return dc.on ? exact(dc.learning_rate, "") : std::string();
      },
      [](const Plan& p) { return async_ps(p) && compensated(p); },
      "give the delay compensation's lambda first", "the server's SGD step"));
}

}  // namespace

void add_compression_fields(std::vector<PlanField>& f) {
  add_compression_kind(f);
  f.push_back(compression_knob(
      "density", "density", PlanField::Kind::kText,
      [](const WhatIf& w) { return exact(w.plan.training.compression.density, ""); }, sparse,
      "applies to compression topk and randomk", "share of the elements kept, in (0, 1]"));
  f.push_back(compression_knob(
      "shared_indices", "shared indices", PlanField::Kind::kBool,
      [](const WhatIf& w) {
        return std::string(w.plan.training.compression.shared_indices ? "true" : "false");
      },
      [](const Plan& p) { return p.training.compression.kind == CompressionKind::kRandomk; },
      "applies to compression randomk",
      "every worker draws the same indices: the ring all-reduces the values (GRACE)"));
  f.push_back(compression_knob(
      "chunk", "quantization chunk", PlanField::Kind::kText,
      [](const WhatIf& w) { return core::format_bytes(w.plan.training.compression.chunk); },
      quantized, "applies to compression int8, onebit and quantize",
      "fp32 gradient bytes per scale"));
  f.push_back(compression_knob(
      "bits", "quantization bits", PlanField::Kind::kChoice,
      [](const WhatIf& w) { return std::to_string(w.plan.training.compression.bits); },
      [](const Plan& p) { return p.training.compression.kind == CompressionKind::kQuantize; },
      "applies to compression quantize", "bits an element: 1 (signs), 2, 4 or 8 (QSGD, CGX)"));
  f.back().choices = {"1", "2", "4", "8"};
  f.push_back(compression_knob(
      "exchange", "quantized exchange", PlanField::Kind::kChoice,
      [](const WhatIf& w) {
        return std::string(w.plan.training.compression.allgather ? "allgather" : "allreduce");
      },
      quantized, "applies to compression int8, onebit and quantize",
      "allreduce: 1-bit Adam's (owners sum and re-encode); allgather: GRACE's (every worker's "
      "encoded bucket to everyone)"));
  f.back().choices = {"allreduce", "allgather"};
  f.push_back(compression_knob(
      "majority_vote", "majority vote", PlanField::Kind::kBool,
      [](const WhatIf& w) {
        return std::string(w.plan.training.compression.majority_vote ? "true" : "false");
      },
      [](const Plan& p) {
        const auto& c = p.training.compression;
        return c.quantized() && c.quantize_bits() == 1 && !c.error_feedback;
      },
      "applies to signs (onebit, or quantize with bits 1) without error feedback",
      "signSGD: each element the sign most workers sent (exchange allgather over the ring, or "
      "the ps's servers count)"));
  f.push_back(compression_knob(
      "rank", "low rank", PlanField::Kind::kText,
      [](const WhatIf& w) { return std::to_string(w.plan.training.compression.rank); },
      [](const Plan& p) { return p.training.compression.kind == CompressionKind::kPowersgd; },
      "applies to compression powersgd", "PowerSGD's rank: columns of P and Q per bucket"));
  f.push_back(compression_knob(
      "error_feedback", "error feedback", PlanField::Kind::kBool,
      [](const WhatIf& w) {
        return std::string(w.plan.training.compression.error_feedback ? "true" : "false");
      },
      [](const Plan& p) { return p.training.compression.on(); },
      "applies to topk, randomk, int8, onebit, quantize and powersgd",
      "keep what compression dropped and add it to the next step"));
  add_delay_compensation_fields(f);
}

}  // namespace scaleout::gui

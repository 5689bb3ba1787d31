#include "core/plan/plan_stamp.hpp"

#include <cstdint>
#include <cstdio>

#include "core/plan/plan_writer.hpp"

namespace scaleout::core {

std::string hash_hex(const std::string& text) {
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a, 64 bits
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ULL;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

PlanStamp plan_stamp(const Plan& plan) {
  Plan normalized = plan;
  normalized.training.steps = 1;
  PlanStamp s;
  s.hash = hash_hex(plan_to_yaml(normalized));
  s.strategy = strategy_name(plan.strategy.kind);
  s.workers = plan.training.workers;
  s.cluster = plan.cluster.name;
  return s;
}

nlohmann::json stamp_to_json(const PlanStamp& s) {
  return {
      {"hash", s.hash}, {"strategy", s.strategy}, {"workers", s.workers}, {"cluster", s.cluster}};
}

std::optional<PlanStamp> stamp_from_json(const nlohmann::json& j) {
  if (!j.contains("plan_stamp") || !j["plan_stamp"].is_object()) return std::nullopt;
  const auto& s = j["plan_stamp"];
  return PlanStamp{s.value("hash", ""), s.value("strategy", ""), s.value("workers", 0),
                   s.value("cluster", "")};
}

std::string stamp_difference(const PlanStamp& a, const PlanStamp& b) {
  std::string out;
  auto add = [&](const std::string& what) { out += (out.empty() ? "" : ", ") + what; };
  if (a.strategy != b.strategy) add("strategy " + a.strategy + " vs " + b.strategy);
  if (a.workers != b.workers)
    add("workers " + std::to_string(a.workers) + " vs " + std::to_string(b.workers));
  if (a.cluster != b.cluster) add("cluster " + a.cluster + " vs " + b.cluster);
  if (out.empty() && a.hash != b.hash)
    add("the plans differ inside (hash " + a.hash + " vs " + b.hash +
        "): another topology, model or setting");
  return out;
}

}  // namespace scaleout::core

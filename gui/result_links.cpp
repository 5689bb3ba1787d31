#include "gui/result_links.hpp"

#include <filesystem>
#include <set>

namespace scaleout::gui {

std::string links_mismatch(const core::RunResult& r, const core::Plan& plan,
                           const core::Topology& topo) {
  if (r.workers != plan.training.workers)
    return "it ran " + std::to_string(r.workers) + " workers, the view shows " +
           std::to_string(plan.training.workers);
  if (!r.cluster.empty() && r.cluster != plan.cluster.name)
    return "it ran on cluster '" + r.cluster + "', the view shows '" + plan.cluster.name + "'";
  std::set<std::string> names;
  for (const auto& l : topo.links()) names.insert(l.name);
  for (const auto& l : r.links)
    if (!names.count(l.name)) return "its link '" + l.name + "' is not in the drawn cluster";
  return {};
}

ResultLinks result_for_topology(const std::vector<MeasuredPoint>& opened, int preferred,
                                const core::Plan& plan, const core::Topology& topo) {
  std::vector<int> order;
  if (preferred >= 0 && preferred < static_cast<int>(opened.size())) order.push_back(preferred);
  for (int i = static_cast<int>(opened.size()) - 1; i >= 0; --i)
    if (i != preferred) order.push_back(i);
  ResultLinks out;
  for (int i : order) {
    const MeasuredPoint& m = opened[i];
    if (m.measured.links.empty()) continue;
    std::string why = links_mismatch(m.measured, plan, topo);
    if (why.empty()) return {&m, {}};
    if (out.mismatch.empty())
      out.mismatch = std::filesystem::path(m.file).filename().string() +
                     " does not colour the cluster view: " + why;
  }
  return out;
}

}  // namespace scaleout::gui

// Which opened result colours the cluster view: one whose `links` belong to the drawn topology.
// A result fits when it ran the view's worker count on the same cluster (by name, when the file
// names one) and every link it reports is a link of the drawn topology; otherwise the reason says
// why, for the status bar.
#pragma once

#include <string>
#include <vector>

#include "core/plan/plan.hpp"
#include "core/plan/topology.hpp"
#include "gui/measured.hpp"

namespace scaleout::gui {

struct ResultLinks {
  const MeasuredPoint* point = nullptr;  // whose measured.links colour the view; null: none fits
  std::string mismatch;  // why the first result with links does not fit (empty when one fits)
};

// Empty when `r` fits `topo`, drawn for `plan` at plan.training.workers; else the reason.
std::string links_mismatch(const core::RunResult& r, const core::Plan& plan,
                           const core::Topology& topo);

// Tries `opened[preferred]` first (the table's selection; -1: none), then the newest first.
// Results without links are passed over silently: they have nothing to colour with.
ResultLinks result_for_topology(const std::vector<MeasuredPoint>& opened, int preferred,
                                const core::Plan& plan, const core::Topology& topo);

}  // namespace scaleout::gui

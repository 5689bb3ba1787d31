// The split search's answers the window draws: the best split at each size and the top N at one
// size. They are kept while the plan changes only in its own split (the search does not start
// from it) and worked out again after any other edit, so that editing the split stays quick.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/plan/plan.hpp"
#include "explore/split_plan.hpp"

namespace scaleout::gui {

class SplitSearchCache {
 public:
  // As sim::best_split_per_size(sim::with_global_batch(plan), sizes).
  const std::vector<sim::SizeBest>& best_per_size(const core::Plan& plan,
                                                  const std::vector<int>& sizes);
  // As sim::search_at(sim::with_global_batch(plan), workers, {top}).best.
  const std::vector<sim::SplitCandidate>& top_at(const core::Plan& plan, int workers, int top);
  // Searches run so far (each size of best_per_size counts one).
  long searches() const { return searches_; }

 private:
  // Forgets every answer when `plan` differs from the last one in more than its split.
  void key_on(const core::Plan& plan);

  std::string key_;  // the plan as the search sees it, as YAML
  std::vector<int> sizes_;
  std::vector<sim::SizeBest> best_;
  std::map<std::pair<int, int>, std::vector<sim::SplitCandidate>> top_;  // by (workers, top)
  long searches_ = 0;
};

}  // namespace scaleout::gui

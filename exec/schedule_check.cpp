#include "exec/schedule_check.hpp"

#include <map>
#include <utility>

namespace scaleout::exec {

using namespace scaleout::core;

namespace {

using Groups = std::vector<std::vector<PointOp>>;

// Each operation's index among those of its direction on its pair: the k-th send from a to b
// meets the k-th receive of b from a.
std::vector<std::vector<std::vector<int>>> pair_indices(const std::vector<Groups>& ranks) {
  std::vector<std::vector<std::vector<int>>> index(ranks.size());
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    std::map<std::pair<int, bool>, int> count;  // (peer, send) -> posted so far
    for (const auto& group : ranks[r]) {
      index[r].emplace_back();
      for (const PointOp& op : group) index[r].back().push_back(count[{op.peer, op.send}]++);
    }
  }
  return index;
}

}  // namespace

std::string nccl_schedule_hangs(const std::vector<Groups>& ranks) {
  auto index = pair_indices(ranks);
  std::vector<std::size_t> active(ranks.size(), 0);   // the group each rank runs
  std::vector<std::vector<bool>> done(ranks.size());  // its operations that moved
  auto start = [&](std::size_t r) {
    while (active[r] < ranks[r].size() && ranks[r][active[r]].empty()) ++active[r];
    if (active[r] < ranks[r].size()) done[r].assign(ranks[r][active[r]].size(), false);
  };
  for (std::size_t r = 0; r < ranks.size(); ++r) start(r);
  for (bool progress = true; progress;) {
    progress = false;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      if (active[r] >= ranks[r].size()) continue;
      const auto& group = ranks[r][active[r]];
      for (std::size_t i = 0; i < group.size(); ++i) {
        if (done[r][i]) continue;
        auto peer = static_cast<std::size_t>(group[i].peer);
        if (peer >= ranks.size() || active[peer] >= ranks[peer].size()) continue;
        const auto& theirs = ranks[peer][active[peer]];
        for (std::size_t j = 0; j < theirs.size(); ++j)
          if (!done[peer][j] && theirs[j].peer == static_cast<int>(r) &&
              theirs[j].send != group[i].send &&
              index[peer][active[peer]][j] == index[r][active[r]][i]) {
            done[r][i] = done[peer][j] = true;
            progress = true;
            break;
          }
      }
      bool all = true;
      for (bool d : done[r]) all = all && d;
      if (all) {
        ++active[r];
        start(r);
        progress = true;
      }
    }
  }
  std::string stuck;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    if (active[r] >= ranks[r].size()) continue;
    for (std::size_t i = 0; i < done[r].size(); ++i)
      if (!done[r][i]) {
        if (!stuck.empty()) stuck += "; ";
        stuck += "rank " + std::to_string(r) + " group " + std::to_string(active[r]) +
                 " waits for " + describe(ranks[r][active[r]][i]);
        break;
      }
  }
  return stuck;
}

}  // namespace scaleout::exec

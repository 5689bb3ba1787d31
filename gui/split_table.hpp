// The search's best splits at one cluster size, with the columns `scaleout plan --search` prints;
// double-clicking a row loads its split into the plan.
#pragma once

#include <QTableWidget>
#include <functional>
#include <vector>

#include "explore/split_search.hpp"

namespace scaleout::gui {

class SplitTable : public QTableWidget {
 public:
  explicit SplitTable(QWidget* parent = nullptr);

  // `top`: the search's answer at `workers`, fastest first; rows whose step ties the row above are
  // numbered with "=", as the CLI marks them.
  void show_splits(std::vector<sim::SplitCandidate> top, int workers);
  const std::vector<sim::SplitCandidate>& splits() const { return splits_; }

  // Called with a row's split when it is picked.
  void on_pick(std::function<void(const core::Parallelism&)> callback) {
    on_pick_ = std::move(callback);
  }
  // Picks `row` as a double-click does.
  void pick(int row);

 private:
  std::vector<sim::SplitCandidate> splits_;
  std::function<void(const core::Parallelism&)> on_pick_;
};

}  // namespace scaleout::gui

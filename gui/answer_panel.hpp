// The planning answer: a target (throughput, or time-to-train from samples per epoch x epochs), a
// minimum efficiency and a price, answered by sim::plan_cluster, the function `scaleout plan`
// calls. A transformer plan's targets are in tokens: tokens/s, or tokens to train in a time.
#pragma once

#include <QWidget>
#include <functional>
#include <map>
#include <optional>

#include "explore/planner.hpp"
#include "explore/split_plan.hpp"
#include "gui/curves.hpp"
#include "gui/plan_fields.hpp"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QScrollArea;

namespace scaleout::gui {

class AnswerPanel : public QWidget {
 public:
  explicit AnswerPanel(QWidget* parent = nullptr);

  // Answers again for `w` (its plan and its largest worker count), taking the points `curves`
  // already predicted for that plan (may be null) instead of predicting them again.
  void set_what_if(const WhatIf& w, const Curves* curves = nullptr);
  // The last answer; nullopt while an input is wrong.
  const std::optional<sim::PlanAnswer>& answer() const { return answer_; }

  QComboBox* target_kind() const { return kind_; }
  // Transformer plans: the best split at each worker count the curves show and the smallest
  // cluster whose best split reaches the target (explore/split_plan.hpp), searched on request (a
  // search takes up to seconds, too long for every keystroke). Returns what it says.
  QString search_splits();
  QPushButton* splits_button() const { return splits_button_; }
  const std::vector<sim::SizeBest>& split_rows() const { return split_rows_; }
  const std::optional<sim::SplitPlanAnswer>& split_answer() const { return split_answer_; }
  // Called after each search of the splits (and with none when the plan changes).
  void on_splits(std::function<void()> callback) { on_splits_ = std::move(callback); }
  // "throughput", "deadline", "samples_per_epoch", "epochs", "min_efficiency", "price".
  QLineEdit* input(const QString& name) const;
  // The label of an input's row ("target samples/s", or "target tokens/s" for a transformer).
  QString label(const QString& name) const;

 private:
  sim::PlanRequest request() const;  // throws core::InputError naming the input
  int tokens_per_sample() const;     // the transformer's sequence; 0: targets in samples
  void set_units(bool tokens);       // relabels the targets, and resets them on a change of units
  void update();
  void show_answer(const sim::PlanAnswer& a);

  void show_splits();

  WhatIf what_if_;
  const Curves* curves_ = nullptr;  // the window's, of what_if_.plan
  std::optional<sim::PlanAnswer> answer_;
  QComboBox* kind_ = nullptr;
  std::map<QString, QLabel*> labels_;  // each input's row label, by input name
  bool tokens_ = false;                // the targets are in tokens
  QLabel* text_ = nullptr;
  QPushButton* splits_button_ = nullptr;
  QLabel* splits_text_ = nullptr;
  QScrollArea* splits_scroll_ = nullptr;  // holds splits_text_, shown after a search
  std::vector<sim::SizeBest> split_rows_;
  std::optional<sim::SplitPlanAnswer> split_answer_;
  std::function<void()> on_splits_;
};

}  // namespace scaleout::gui

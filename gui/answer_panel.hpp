// The planning answer: a target (throughput, or time-to-train from samples per epoch x epochs), a
// minimum efficiency and a price, answered by sim::plan_cluster, the function `scaleout plan`
// calls.
#pragma once

#include <QWidget>
#include <optional>

#include "gui/plan_fields.hpp"
#include "sim/planner.hpp"

class QComboBox;
class QLabel;
class QLineEdit;

namespace scaleout::gui {

class AnswerPanel : public QWidget {
 public:
  explicit AnswerPanel(QWidget* parent = nullptr);

  // Answers again for `w` (its plan and its largest worker count).
  void set_what_if(const WhatIf& w);
  // The last answer; nullopt while an input is wrong.
  const std::optional<sim::PlanAnswer>& answer() const { return answer_; }

  QComboBox* target_kind() const { return kind_; }
  // "throughput", "deadline", "samples_per_epoch", "epochs", "min_efficiency", "price".
  QLineEdit* input(const QString& name) const;

 private:
  sim::PlanRequest request() const;  // throws core::InputError naming the input
  void update();
  void show_answer(const sim::PlanAnswer& a);

  WhatIf what_if_;
  std::optional<sim::PlanAnswer> answer_;
  QComboBox* kind_ = nullptr;
  QLabel* text_ = nullptr;
};

}  // namespace scaleout::gui

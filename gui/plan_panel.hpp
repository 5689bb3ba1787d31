// The plan panel: the fields that decide scaling, edited as text with units. A valid edit updates
// the plan at once; a wrong value is marked at its field (red, the loader's message as tooltip)
// and the plan keeps its last good value.
#pragma once

#include <QWidget>
#include <functional>
#include <map>
#include <string>

#include "gui/plan_fields.hpp"

class QCheckBox;
class QComboBox;
class QFormLayout;
class QGroupBox;
class QLabel;
class QVBoxLayout;

namespace scaleout::gui {

class PlanPanel : public QWidget {
 public:
  explicit PlanPanel(QWidget* parent = nullptr);

  // Shows `w` in every field and clears the marks.
  void set_what_if(const WhatIf& w);
  // The plan with every valid edit applied.
  const WhatIf& what_if() const { return good_; }
  // Called after each valid edit.
  void on_change(std::function<void(const WhatIf&)> callback) { on_change_ = std::move(callback); }

  // The editor of a field (QLineEdit, QComboBox or QCheckBox), for tests and focus; "cluster"
  // and "workload" are the pickers of the bundled topologies and models.
  QWidget* editor(const std::string& key) const { return editors_.at(key); }
  // Loads a topology ("cluster") or model ("workload") file from anywhere into the plan, as a
  // pick of a bundled one does; returns the loader's message (file:line) on error, else empty.
  QString open_part(const std::string& key, const std::string& path);
  // Shows what the model says of its own numbers for this plan (the analytic warnings of the
  // curves' points, each once), under the fields.
  void set_warnings(const QStringList& warnings);
  QString warnings() const;
  // The message marking a field; empty when its value is good.
  QString error(const std::string& key) const;
  // Fields that do not apply to the plan are folded away (their rows hidden) until the box at the
  // top shows them; whether a field's row shows now.
  bool row_shown(const std::string& key) const;
  QCheckBox* show_unused() const { return show_unused_; }

 private:
  QWidget* make_editor(const PlanField& field);
  void edited(const PlanField& field, const std::string& text);
  // Shows good_ in every field but `except`, and enables the fields that apply to it (a field
  // that does not is disabled, its tooltip saying why).
  void show_values(const std::string& except);
  // The sweep range (and the plan's workers) for what `w`'s cluster holds.
  static void fit_sizes(WhatIf& w);
  // A picker of the .yaml files in a bundled directory, named `key`.
  QComboBox* add_picker(const std::string& key, const std::string& dir);
  // Shows the plan's part: its bundled file, else an entry for the part the plan holds itself.
  void select_file(QComboBox* combo, const std::string& file, const std::string& name);
  // Loads a picked topology or model into the plan; the sweep range follows a new cluster.
  void picked(const std::string& key, const std::string& path) { open_part(key, path); }
  void mark(const std::string& key, const QString& message);
  // Hides the rows of the fields that do not apply (unless show_unused_ is on), and puts the
  // Parallelism group right after Workload for a plan with `parallelism:`.
  void fold();

  WhatIf good_;
  std::map<std::string, QWidget*> editors_;
  std::map<std::string, QFormLayout*> form_of_;  // each field's group
  std::map<std::string, QGroupBox*> groups_;     // by name
  QVBoxLayout* layout_ = nullptr;
  QCheckBox* show_unused_ = nullptr;
  std::map<std::string, QString> errors_;
  QLabel* source_ = nullptr;
  QLabel* status_ = nullptr;
  QLabel* warnings_ = nullptr;
  std::function<void(const WhatIf&)> on_change_;
};

}  // namespace scaleout::gui

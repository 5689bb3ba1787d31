#include "gui/plan_panel.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QVBoxLayout>

#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"
#include "gui/bundled_data.hpp"
#include "gui/curves.hpp"

namespace scaleout::gui {

namespace {
const char* kBadStyle = "background: #ffd6d6; border: 1px solid #c62828;";
}

PlanPanel::PlanPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout_ = layout;
  source_ = new QLabel;
  source_->setWordWrap(true);
  layout->addWidget(source_);
  show_unused_ = new QCheckBox("show the settings this plan does not use");
  show_unused_->setObjectName("show-unused");
  connect(show_unused_, &QCheckBox::toggled, this, [this] { fold(); });
  layout->addWidget(show_unused_);
  std::map<std::string, QFormLayout*> forms;
  for (const auto& name : plan_field_groups()) {
    auto* box = new QGroupBox(QString::fromStdString(name));
    box->setObjectName(QString::fromStdString("group-" + name));
    auto* form = new QFormLayout(box);
    form->setLabelAlignment(Qt::AlignRight);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    forms[name] = form;
    groups_[name] = box;
    layout->addWidget(box);
  }
  forms["Cluster"]->addRow("cluster", add_picker("cluster", "topologies"));
  forms["Workload"]->addRow("model", add_picker("workload", "models"));
  for (const auto& f : plan_fields()) {
    QWidget* editor = make_editor(f);
    editor->setObjectName(QString::fromStdString(f.key));
    editors_[f.key] = editor;
    form_of_[f.key] = forms[plan_field_group(f)];
    forms[plan_field_group(f)]->addRow(QString::fromStdString(f.label), editor);
  }
  status_ = new QLabel;
  status_->setWordWrap(true);
  status_->setStyleSheet("color: #c62828;");
  layout->addWidget(status_);
  warnings_ = new QLabel;
  warnings_->setObjectName("warnings");
  warnings_->setWordWrap(true);
  warnings_->setStyleSheet("color: #8a5a00;");
  layout->addWidget(warnings_);
  layout->addStretch();
}

QWidget* PlanPanel::make_editor(const PlanField& f) {
  if (f.kind == PlanField::Kind::kText) {
    auto* line = new QLineEdit;
    connect(line, &QLineEdit::textEdited, this,
            [this, &f](const QString& t) { edited(f, t.toStdString()); });
    return line;
  }
  if (f.kind == PlanField::Kind::kChoice) {
    auto* combo = new QComboBox;
    // Long choices ("hierarchical_halving_doubling") must not widen the panel.
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(8);
    for (const auto& c : f.choices) combo->addItem(QString::fromStdString(c));
    connect(combo, &QComboBox::textActivated, this,
            [this, &f](const QString& t) { edited(f, t.toStdString()); });
    return combo;
  }
  auto* box = new QCheckBox;
  connect(box, &QCheckBox::clicked, this,
          [this, &f](bool on) { edited(f, on ? "true" : "false"); });
  return box;
}

void PlanPanel::set_what_if(const WhatIf& w) {
  good_ = w;
  errors_.clear();
  const auto& p = w.plan;
  source_->setText(QString("<b>%1</b><br>cluster %2, model %3")
                       .arg(QFileInfo(QString::fromStdString(p.file)).fileName(),
                            QString::fromStdString(p.cluster.name),
                            QString::fromStdString(p.workload.name)));
  // A part written inline in the plan carries the plan's own file name.
  auto own_file = [&p](const std::string& file) { return file == p.file ? std::string() : file; };
  select_file(static_cast<QComboBox*>(editors_.at("cluster")), own_file(p.cluster.file),
              p.cluster.name);
  select_file(static_cast<QComboBox*>(editors_.at("workload")), own_file(p.workload.file),
              p.workload.name);
  mark("cluster", "");
  mark("workload", "");
  for (const auto& f : plan_fields()) mark(f.key, "");
  show_values("");
}

void PlanPanel::show_values(const std::string& except) {
  for (const auto& f : plan_fields()) {
    // The field being typed into, and one holding a wrong value, keep their text.
    if (f.key == except || errors_.count(f.key)) continue;
    QString value = QString::fromStdString(f.get(good_));
    QWidget* e = editors_.at(f.key);
    if (auto* line = qobject_cast<QLineEdit*>(e)) line->setText(value);
    if (auto* combo = qobject_cast<QComboBox*>(e)) combo->setCurrentText(value);
    if (auto* box = qobject_cast<QCheckBox*>(e)) box->setChecked(value == "true");
  }
  for (const auto& f : plan_fields()) {
    std::string why = f.why_off ? f.why_off(good_) : std::string();
    editors_.at(f.key)->setEnabled(why.empty());
    if (!errors_.count(f.key))
      editors_.at(f.key)->setToolTip(QString::fromStdString(why.empty() ? f.hint : why));
  }
  fold();
}

void PlanPanel::fold() {
  int unused = 0;
  for (const auto& f : plan_fields()) {
    QWidget* e = editors_.at(f.key);
    bool off = !e->isEnabled() && !errors_.count(f.key);
    unused += off;
    form_of_.at(f.key)->setRowVisible(e, !off || show_unused_->isChecked());
  }
  show_unused_->setText(QString("show the %1 settings this plan does not use").arg(unused));
  // A split plan's own fields come first, after the model.
  QGroupBox* split = groups_.at("Parallelism");
  layout_->removeWidget(split);
  int after = layout_->indexOf(groups_.at(good_.plan.parallelism ? "Workload" : "Strategy"));
  layout_->insertWidget(after + 1, split);
}

bool PlanPanel::row_shown(const std::string& key) const {
  QWidget* e = editors_.at(key);
  return !e->isHidden();
}

QComboBox* PlanPanel::add_picker(const std::string& key, const std::string& dir) {
  auto* combo = new QComboBox;
  combo->setObjectName(QString::fromStdString(key));
  // Long file names must not widen the panel: the popup shows them whole.
  combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  combo->setMinimumContentsLength(8);
  for (const auto& path : yaml_files(core::bundled_path(dir)))
    combo->addItem(QFileInfo(QString::fromStdString(path)).completeBaseName(),
                   QString::fromStdString(path));
  connect(combo, &QComboBox::activated, this, [this, key, combo](int i) {
    QString path = combo->itemData(i).toString();
    if (!path.isEmpty()) picked(key, path.toStdString());
  });
  editors_[key] = combo;
  return combo;
}

void PlanPanel::select_file(QComboBox* combo, const std::string& file, const std::string& name) {
  for (int i = combo->count() - 1; i >= 0; --i)  // the plan's own part, from the last plan
    if (combo->itemData(i).toString().isEmpty()) combo->removeItem(i);
  QString wanted = QFileInfo(QString::fromStdString(file)).canonicalFilePath();
  for (int i = 0; i < combo->count(); ++i) {
    if (!wanted.isEmpty() &&
        QFileInfo(combo->itemData(i).toString()).canonicalFilePath() == wanted) {
      combo->setCurrentIndex(i);
      return;
    }
  }
  if (!wanted.isEmpty()) {  // a file from outside the bundled folders
    combo->addItem(QFileInfo(wanted).completeBaseName() + " (opened)", wanted);
    combo->setCurrentIndex(combo->count() - 1);
    combo->setToolTip(wanted);
    return;
  }
  combo->insertItem(0, QString::fromStdString(name) + " (in the plan)", QString());
  combo->setCurrentIndex(0);
}

QString PlanPanel::open_part(const std::string& key, const std::string& path) {
  WhatIf candidate = good_;
  core::Plan& plan = candidate.plan;
  try {
    if (key == "cluster") {
      plan.cluster = core::load_cluster(path);
      fit_sizes(candidate);
      plan.strategy.grid.reset();
    } else {
      plan.workload = core::load_workload(path);
    }
    core::validate_plan(plan);
  } catch (const core::InputError& e) {
    mark(key, QString::fromStdString(e.what()));
    return error(key);
  }
  set_what_if(candidate);
  if (on_change_) on_change_(good_);
  return {};
}

void PlanPanel::fit_sizes(WhatIf& w) {
  std::vector<int> sizes = fitting_sizes(w.plan);  // a fixed cluster holds only so many
  w.min_workers = sizes.front();
  w.max_workers = sizes.back();
  if (w.plan.training.workers > sizes.back()) {
    w.plan.training.workers = sizes.back();
    w.plan.strategy.grid.reset();  // a grid fits one worker count
  }
}

void PlanPanel::set_warnings(const QStringList& warnings) {
  QStringList lines;
  for (const auto& w : warnings) lines << "warning: " + w;
  warnings_->setText(lines.join("\n"));
  warnings_->setVisible(!lines.isEmpty());
}

QString PlanPanel::warnings() const { return warnings_->text(); }

QString PlanPanel::error(const std::string& key) const {
  auto it = errors_.find(key);
  return it == errors_.end() ? QString() : it->second;
}

void PlanPanel::edited(const PlanField& field, const std::string& text) {
  WhatIf candidate = good_;
  try {
    field.set(candidate, text);
    if (field.resizes) fit_sizes(candidate);
    core::validate_plan(candidate.plan);
  } catch (const core::InputError& e) {
    mark(field.key, QString::fromStdString(e.what()));
    return;
  }
  good_ = candidate;
  mark(field.key, "");
  show_values(field.key);  // an edit may fill or switch off other fields
  if (on_change_) on_change_(good_);
}

void PlanPanel::mark(const std::string& key, const QString& message) {
  QWidget* e = editors_.at(key);
  if (message.isEmpty()) {
    errors_.erase(key);
    e->setStyleSheet("");
    e->setToolTip("");  // show_values gives it its hint or why it is off
  } else {
    errors_[key] = message;
    e->setStyleSheet(kBadStyle);
    e->setToolTip(message);
  }
  QStringList all;
  for (const auto& [k, m] : errors_) all << m;
  status_->setText(all.isEmpty() ? QString()
                                 : all.join("\n") + "\n(the charts keep the last good values)");
}

}  // namespace scaleout::gui

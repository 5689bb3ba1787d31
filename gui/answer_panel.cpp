#include "gui/answer_panel.hpp"

#include <QApplication>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

#include "core/plan/input_error.hpp"
#include "core/plan/units.hpp"

namespace scaleout::gui {

namespace {

struct Input {
  const char* name;
  const char* label;
  const char* initial;
  const char* tip;
};

const Input kInputs[] = {
    {"throughput", "target samples/s", "50K", "samples per second to reach, e.g. 50000 or 50K"},
    {"deadline", "train within", "86400s", "seconds, e.g. 86400 or 86400s"},
    {"samples_per_epoch", "samples per epoch", "1.28M", "e.g. 1281167 or 1.28M"},
    {"epochs", "epochs", "90", "epochs to train"},
    {"min_efficiency", "min. efficiency", "0.5", "scaling efficiency to keep, 0..1"},
    {"price", "price / device-hour", "", "empty: the topology's price_per_device_hour"},
};

// A transformer plan's targets: tokens/s, or tokens to train (one pass) in a time. GPT-3's 300B
// tokens (Brown et al. 2020) as the example.
const Input kTokenInputs[] = {
    {"throughput", "target tokens/s", "100K", "tokens per second to reach, e.g. 100000 or 100K"},
    {"samples_per_epoch", "tokens to train", "300B", "tokens in one pass, e.g. 300B or 2T"},
    {"epochs", "passes", "1", "passes over those tokens"},
};

// A number with an optional count suffix (50K, 1.28M); a time in seconds or in units (3600s, 6h).
double read_number(const QLineEdit* e, const char* name, core::Quantity q) {
  std::string text = e->text().toStdString();
  auto v = q == core::Quantity::kTime ? core::parse_seconds(text) : core::parse_quantity(text, q);
  if (!v) throw core::InputError("", 0, name, "'" + text + "' is not " + core::quantity_example(q));
  return *v;
}

// A wrapped, selectable text that starts at the top left.
QLabel* selectable_text() {
  auto* label = new QLabel;
  label->setWordWrap(true);
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  label->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  return label;
}

}  // namespace

AnswerPanel::AnswerPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* title = new QLabel("<b>Plan a cluster</b> (analytic; whole nodes, from one)");
  title->setWordWrap(true);
  layout->addWidget(title);
  auto* form = new QFormLayout;
  kind_ = new QComboBox;
  kind_->addItems({"throughput", "time to train"});
  form->addRow("target", kind_);
  for (const auto& in : kInputs) {
    auto* e = new QLineEdit(in.initial);
    e->setObjectName(in.name);
    e->setToolTip(in.tip);
    labels_[in.name] = new QLabel(in.label);
    form->addRow(labels_[in.name], e);
    connect(e, &QLineEdit::textEdited, this, [this] { update(); });
  }
  connect(kind_, &QComboBox::currentIndexChanged, this, [this] { update(); });
  layout->addLayout(form);
  text_ = selectable_text();
  layout->addWidget(text_, 1);
  splits_button_ = new QPushButton("Best splits per size (search)");
  splits_button_->setToolTip(
      "a transformer plan: the best tensor x pipeline x data split at each size, and the "
      "smallest cluster whose best split reaches the target (as scaleout plan --search)");
  connect(splits_button_, &QPushButton::clicked, this, [this] { search_splits(); });
  layout->addWidget(splits_button_);
  splits_text_ = selectable_text();
  // A long table scrolls rather than squeezing the charts beside the panel.
  splits_scroll_ = new QScrollArea;
  splits_scroll_->setWidget(splits_text_);
  splits_scroll_->setWidgetResizable(true);
  splits_scroll_->setFrameShape(QFrame::NoFrame);
  splits_scroll_->setMinimumHeight(160);
  splits_scroll_->setMaximumHeight(280);
  splits_scroll_->hide();  // until a search
  layout->addWidget(splits_scroll_);
}

QLineEdit* AnswerPanel::input(const QString& name) const { return findChild<QLineEdit*>(name); }

QString AnswerPanel::label(const QString& name) const {
  auto it = labels_.find(name);
  return it == labels_.end() ? QString() : it->second->text();
}

int AnswerPanel::tokens_per_sample() const {
  return tokens_ ? what_if_.plan.workload.transformer->sequence : 0;
}

void AnswerPanel::set_units(bool tokens) {
  if (tokens == tokens_) return;
  tokens_ = tokens;
  auto apply = [this](const Input& in) {
    labels_[in.name]->setText(in.label);
    input(in.name)->setText(in.initial);
    input(in.name)->setToolTip(in.tip);
  };
  for (const Input& token_input : kTokenInputs) {
    if (tokens) {
      apply(token_input);
      continue;
    }
    for (const Input& in : kInputs)  // the same row in samples
      if (std::string(in.name) == token_input.name) apply(in);
  }
}

void AnswerPanel::set_what_if(const WhatIf& w, const Curves* curves) {
  what_if_ = w;
  curves_ = curves;
  set_units(w.plan.workload.transformer.has_value());
  splits_button_->setVisible(w.plan.workload.transformer.has_value());
  bool had_splits = !split_rows_.empty();
  split_rows_.clear();  // searched for another plan
  split_answer_.reset();
  splits_text_->clear();
  splits_scroll_->hide();
  update();
  if (had_splits && on_splits_) on_splits_();
}

QString AnswerPanel::search_splits() {
  if (!what_if_.plan.workload.transformer) return "the plan has no transformer to split";
  QApplication::setOverrideCursor(Qt::WaitCursor);
  split_rows_ = sim::best_split_per_size(what_if_.plan,
                                         sim::planner_sizes(what_if_.plan, what_if_.max_workers));
  split_answer_.reset();
  try {
    sim::PlanRequest target = request();
    sim::SplitPlanRequest r;
    r.sequences_per_s = sim::plan_cluster_target(target);
    r.max_workers = what_if_.max_workers;
    r.price_per_device_hour = target.price_per_device_hour;
    split_answer_ = sim::smallest_split_cluster(what_if_.plan, r);
  } catch (const core::InputError&) {
    // A wrong target is said above, by update(); the splits per size still show.
  }
  QApplication::restoreOverrideCursor();
  show_splits();
  if (on_splits_) on_splits_();
  return split_answer_ ? QString::fromStdString(split_answer_->message) : "searched";
}

sim::PlanRequest AnswerPanel::request() const {
  sim::PlanRequest r;
  // Tokens are sequences of the transformer's length to the planner.
  double per_sample = tokens_ ? tokens_per_sample() : 1.0;
  auto number = [this](const char* name, core::Quantity q) {
    return read_number(input(name), label(name).toStdString().c_str(), q);
  };
  if (kind_->currentIndex() == 0) {
    r.target.throughput = number("throughput", core::Quantity::kCount) / per_sample;
  } else {
    r.target.kind = sim::PlanTarget::Kind::kTimeToTrain;
    r.target.deadline_s = number("deadline", core::Quantity::kTime);
    r.target.samples_per_epoch = number("samples_per_epoch", core::Quantity::kCount) / per_sample;
    r.target.epochs = number("epochs", core::Quantity::kCount);
  }
  r.min_efficiency =
      read_number(input("min_efficiency"), "min. efficiency", core::Quantity::kCount);
  if (!input("price")->text().trimmed().isEmpty())
    r.price_per_device_hour =
        read_number(input("price"), "price / device-hour", core::Quantity::kCount);
  r.max_workers = what_if_.max_workers;
  if (curves_)
    r.known = [curves = curves_](core::StrategyKind kind, int workers) {
      const core::RunResult* r = sim::find_point(*curves, core::strategy_name(kind), workers);
      return r && r->engine == "analytic" ? r : nullptr;  // refined points stay the simulator's
    };
  return r;
}

void AnswerPanel::update() {
  bool by_time = kind_->currentIndex() == 1;
  input("throughput")->setEnabled(!by_time);
  for (const char* name : {"deadline", "samples_per_epoch", "epochs"})
    input(name)->setEnabled(by_time);
  if (what_if_.plan.cluster.device.flops <= 0) return;  // no plan yet
  try {
    answer_ = sim::plan_cluster(what_if_.plan, request());
  } catch (const core::InputError& e) {
    answer_.reset();
    text_->setText("<span style='color:#c62828'>" +
                   QString::fromStdString(e.what()).toHtmlEscaped() + "</span>");
    return;
  }
  show_answer(*answer_);
}

namespace {

// `sequence`: tokens a sample (a transformer's), 0 when the targets are in samples.
QString option_html(const char* title, const sim::PlanOption& o, int sequence) {
  QString s = QString("<b>%1</b> %2 on %3 workers (%4 devices)<br>")
                  .arg(QString(title), QString(core::strategy_name(o.strategy)))
                  .arg(o.workers)
                  .arg(o.devices);
  QString rate = QString("%1 samples/s").arg(o.result.throughput_samples_per_s, 0, 'f', 0);
  if (sequence > 0)
    rate = QString("%1 tokens/s").arg(o.result.throughput_samples_per_s * sequence, 0, 'f', 0);
  s += QString("&nbsp;&nbsp;%1, step %2 ms, efficiency %3 %<br>")
           .arg(rate)
           .arg(o.result.step_time_s * 1e3, 0, 'f', 2)
           .arg(o.result.scaling_efficiency * 100, 0, 'f', 1);
  if (o.train_time_s > 0)
    s += QString("&nbsp;&nbsp;time to train %1 h").arg(o.train_time_s / 3600, 0, 'f', 2);
  if (o.train_time_s > 0 && o.result.reliability)  // the deadline counted failures
    s += QString(" at %1 % goodput").arg(100 * o.result.reliability->goodput, 0, 'f', 1);
  if (o.cost)
    s += QString(", cost %1").arg(*o.cost, 0, 'f', 2);
  else if (o.cost_per_hour)
    s += QString("&nbsp;&nbsp;%1 per hour").arg(*o.cost_per_hour, 0, 'f', 2);
  if (o.train_time_s > 0 || o.cost_per_hour) s += "<br>";
  return s;
}

}  // namespace

void AnswerPanel::show_answer(const sim::PlanAnswer& a) {
  int sequence = tokens_per_sample();
  QString html = sequence > 0
                     ? QString(
                           "needs %1 tokens/s (%2 sequences/s) with the plan's split; "
                           "<i>Best splits per size</i> searches the others<br>")
                           .arg(a.required_throughput * sequence, 0, 'f', 0)
                           .arg(a.required_throughput, 0, 'f', 1)
                     : QString("needs %1 samples/s<br>").arg(a.required_throughput, 0, 'f', 0);
  if (a.reachable) {
    html += option_html("Smallest:", *a.best, sequence);
    html += "&nbsp;&nbsp;bottleneck: " +
            QString::fromStdString(a.best->bottleneck.text).toHtmlEscaped();
    if (a.runner_up) html += "<br>" + option_html("Runner-up:", *a.runner_up, sequence);
  } else {
    html += "<span style='color:#c62828'>" + QString::fromStdString(a.message).toHtmlEscaped() +
            "</span>";
  }
  text_->setText(html);
}

namespace {

QString split_cell(const sim::SplitCandidate& c) {
  const core::ModelParallelOutcome& m = *c.result.model_parallel;
  QString schedule = QString::fromStdString(m.schedule);
  if (m.virtual_stages > 1) schedule += QString(" v%1").arg(m.virtual_stages);
  return QString("%1x%2x%3 mb%4 %5 Z%6")
      .arg(m.tensor)
      .arg(m.pipeline)
      .arg(m.data)
      .arg(m.microbatch)
      .arg(schedule)
      .arg(m.zero);
}

}  // namespace

void AnswerPanel::show_splits() {
  QString html;
  if (split_answer_) {
    QString color = split_answer_->reachable ? "#1b5e20" : "#c62828";
    html += QString("<span style='color:%1'>Best split: %2</span><br>")
                .arg(color, QString::fromStdString(split_answer_->message).toHtmlEscaped());
  }
  html +=
      "<b>Best split per size</b> (tensor x pipeline x data, micro-batch, schedule, ZeRO)"
      "<table cellspacing=4>"
      "<tr><th align=right>workers</th><th align=left>split</th>"
      "<th align=right>tokens/s</th><th align=right>MFU</th>"
      "<th align=left>bottleneck</th></tr>";
  for (const auto& row : split_rows_) {
    html += QString("<tr><td align=right>%1</td>").arg(row.workers);
    if (!row.best) {
      html += "<td colspan=4>no split fits or divides the batch</td></tr>";
      continue;
    }
    const core::ModelParallelOutcome& m = *row.best->result.model_parallel;
    html += QString("<td>%1</td><td align=right>%2</td><td align=right>%3%</td><td>%4</td></tr>")
                .arg(split_cell(*row.best))
                .arg(m.tokens_per_s, 0, 'f', 0)
                .arg(100 * m.mfu, 0, 'f', 1)
                .arg(QString::fromStdString(row.best->bottleneck).toHtmlEscaped());
  }
  html += "</table>";
  splits_text_->setText(html);
  splits_scroll_->show();
}

}  // namespace scaleout::gui

#include "gui/point_timeline.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QThread>

namespace scaleout::gui {

namespace {

// "12,345 of about 300,000 messages, 3 s" (messages the simulation sent so far).
QString progress_text(const sim::ProgressReport& r) {
  QLocale grouped(QLocale::English);
  return QString("%1 of about %2 messages, %3 s")
      .arg(grouped.toString(static_cast<qulonglong>(r.messages)))
      .arg(grouped.toString(static_cast<qulonglong>(r.estimated_messages)))
      .arg(r.elapsed_s, 0, 'f', 0);
}

}  // namespace

PointTimeline::PointTimeline(QWidget* parent) : QWidget(parent) {
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(0, 0, 0, 0);
  label_ = new QLabel;
  cancel_ = new QPushButton("Cancel timeline");
  row->addWidget(label_);
  row->addWidget(cancel_);
  connect(cancel_, &QPushButton::clicked, this, [this] { cancel(); });
  hide();
}

PointTimeline::~PointTimeline() {
  if (job_) job_->cancel();
  if (thread_) {
    thread_->wait();
    delete thread_;
  }
}

void PointTimeline::start(const core::Plan& plan, core::StrategyKind strategy, int workers) {
  cancel();
  if (thread_) thread_->wait();  // the cancelled one ends within a poll
  QString name = QString("sim-%1-%2-workers.json").arg(core::strategy_name(strategy)).arg(workers);
  trace_path_ = traces_.filePath(name);
  sim::SimOptions options;
  options.trace_path = trace_path_.toStdString();
  auto job =
      std::make_shared<RefineJob>(plan, std::vector<RefinePoint>{{strategy, workers}}, options);
  job_ = job;
  QString what = QString("simulating %1 on %2 workers for its timeline")
                     .arg(core::strategy_name(strategy))
                     .arg(workers);
  label_->setText(what + "...");
  job->on_progress([this, job, what](std::size_t, const sim::ProgressReport& r) {
    QString text = what + ": " + progress_text(r);
    QMetaObject::invokeMethod(
        this,
        [=, this] {
          if (job_ == job) label_->setText(text);
        },
        Qt::QueuedConnection);
  });
  show();
  thread_ = QThread::create([this, job] {
    job->run([this, job](std::size_t, const core::RunResult* r, const std::string& error) {
      bool ok = r != nullptr;
      QString why = QString::fromStdString(error);
      QMetaObject::invokeMethod(
          this, [=, this] { done(job, ok, why); }, Qt::QueuedConnection);
    });
  });
  QThread* thread = thread_;
  connect(thread, &QThread::finished, this, [this, job, thread] {
    if (thread_ == thread) thread_ = nullptr;
    thread->deleteLater();
    if (job_ == job && job->cancelled()) done(job, false, "timeline cancelled");
  });
  thread->start();
}

QString PointTimeline::status() const { return label_->text(); }

void PointTimeline::cancel() {
  if (job_) job_->cancel();
}

void PointTimeline::done(const std::shared_ptr<RefineJob>& job, bool ok, const QString& error) {
  if (job_ != job) return;  // a later start replaced it
  job_.reset();
  hide();
  if (ok && on_trace_) on_trace_(trace_path_);
  if (!ok && on_failure_) on_failure_(error);
}

}  // namespace scaleout::gui

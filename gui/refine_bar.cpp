#include "gui/refine_bar.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QThread>

namespace scaleout::gui {

RefineBar::RefineBar(QWidget* parent) : QWidget(parent) {
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(0, 0, 0, 0);
  refine_ = new QPushButton("Refine with SimGrid");
  refine_->setToolTip(QString("simulate every point up to %1 workers; the results replace the "
                              "analytic points and are ringed")
                          .arg(kRefineMaxWorkers));
  cancel_ = new QPushButton("Cancel");
  progress_ = new QProgressBar;
  progress_->setMaximumWidth(220);
  label_ = new QLabel;
  row->addWidget(refine_);
  row->addWidget(progress_);
  row->addWidget(cancel_);
  row->addWidget(label_);
  progress_->hide();
  cancel_->hide();
  connect(refine_, &QPushButton::clicked, this, [this] {
    if (on_request_) on_request_();
  });
  connect(cancel_, &QPushButton::clicked, this, [this] { cancel(); });
}

RefineBar::~RefineBar() {
  if (job_) job_->cancel();
  if (thread_) {
    thread_->wait();
    delete thread_;
  }
}

void RefineBar::start(const core::Plan& plan, std::vector<RefinePoint> points) {
  cancel();
  if (thread_) thread_->wait();  // the cancelled one ends within a poll
  auto job = std::make_shared<RefineJob>(plan, std::move(points));
  job_ = job;
  done_ = failed_ = 0;
  first_error_.clear();
  progress_->setRange(0, static_cast<int>(job->points().size()));
  progress_->setValue(0);
  progress_->show();
  cancel_->show();
  refine_->setEnabled(false);
  label_->setText("simulating...");
  thread_ = QThread::create([this, job] {
    job->run([this, job](std::size_t i, const core::RunResult* r, const std::string& error) {
      core::RunResult copy = r ? *r : core::RunResult{};
      bool ok = r != nullptr;
      QString why = QString::fromStdString(error);
      QMetaObject::invokeMethod(
          this, [=, this] { point_done(job, i, ok, copy, why); }, Qt::QueuedConnection);
    });
  });
  QThread* thread = thread_;
  connect(thread, &QThread::finished, this, [this, job, thread] {
    if (thread_ == thread) thread_ = nullptr;
    thread->deleteLater();
    finished(job);
  });
  thread->start();
}

void RefineBar::cancel() {
  if (job_) job_->cancel();
}

QString RefineBar::status() const { return label_->text(); }

void RefineBar::point_done(const std::shared_ptr<RefineJob>& job, std::size_t index, bool ok,
                           const core::RunResult& r, const QString& error) {
  if (job != job_ || job->cancelled()) return;  // a cancelled refinement's late point
  ++done_;
  progress_->setValue(done_);
  if (!ok) {
    ++failed_;
    if (first_error_.isEmpty()) first_error_ = error;
    return;
  }
  if (on_point_) on_point_(job->points()[index], r);
}

void RefineBar::finished(const std::shared_ptr<RefineJob>& job) {
  if (job != job_) return;
  int total = static_cast<int>(job->points().size());
  QString text = job->cancelled()
                     ? QString("cancelled: %1 of %2 points simulated").arg(done_).arg(total)
                     : QString("%1 of %2 points simulated").arg(done_).arg(total);
  if (failed_) text += QString(" (%1 failed: %2)").arg(failed_).arg(first_error_);
  label_->setText(text);
  job_.reset();
  progress_->hide();
  cancel_->hide();
  refine_->setEnabled(true);
}

}  // namespace scaleout::gui

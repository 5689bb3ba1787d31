// The timeline of one point (a strategy at a size): simulated with a trace in a child process on a
// worker thread (RefineJob), cancellable; when done, the trace's path is handed back on the
// window's thread. Shown in the status bar only while it runs: what it simulates and Cancel.
#pragma once

#include <QTemporaryDir>
#include <QWidget>
#include <functional>
#include <memory>

#include "gui/refine_job.hpp"

class QLabel;
class QPushButton;
class QThread;

namespace scaleout::gui {

class PointTimeline : public QWidget {
 public:
  explicit PointTimeline(QWidget* parent = nullptr);
  ~PointTimeline() override;  // cancels a running simulation and waits for its thread

  // Called on the window's thread with the trace file when the simulation succeeded.
  void on_trace(std::function<void(const QString&)> callback) { on_trace_ = std::move(callback); }
  // Called with what happened when it failed or was cancelled.
  void on_failure(std::function<void(const QString&)> callback) {
    on_failure_ = std::move(callback);
  }

  // Simulates `plan` as `strategy` on `workers` with a trace; cancels one still running.
  void start(const core::Plan& plan, core::StrategyKind strategy, int workers);
  void cancel();
  bool running() const { return job_ != nullptr; }
  // What it simulates and, while it runs, the messages its simulation has sent.
  QString status() const;
  QPushButton* cancel_button() const { return cancel_; }

 private:
  void done(const std::shared_ptr<RefineJob>& job, bool ok, const QString& error);

  QTemporaryDir traces_;  // the traces written, removed with the window
  std::shared_ptr<RefineJob> job_;
  QString trace_path_;
  QThread* thread_ = nullptr;
  QLabel* label_ = nullptr;
  QPushButton* cancel_ = nullptr;
  std::function<void(const QString&)> on_trace_;
  std::function<void(const QString&)> on_failure_;
};

}  // namespace scaleout::gui

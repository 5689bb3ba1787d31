// "Refine with SimGrid": a button, a progress bar and Cancel. The simulations run on a QThread
// (never on the window's thread); each finished point is handed back on the window's thread.
#pragma once

#include <QWidget>
#include <functional>
#include <memory>

#include "gui/refine_job.hpp"

class QLabel;
class QProgressBar;
class QPushButton;
class QThread;

namespace scaleout::gui {

class RefineBar : public QWidget {
 public:
  explicit RefineBar(QWidget* parent = nullptr);
  ~RefineBar() override;  // cancels a running refinement and waits for its thread

  // What a click on the button refines.
  void on_request(std::function<void()> callback) { on_request_ = std::move(callback); }
  // Receives each simulated point, on the window's thread.
  void on_point(std::function<void(const RefinePoint&, const core::RunResult&)> callback) {
    on_point_ = std::move(callback);
  }

  void start(const core::Plan& plan, std::vector<RefinePoint> points);
  // Stops the running refinement; points already delivered stay.
  void cancel();
  bool running() const { return job_ != nullptr; }
  QString status() const;

  QPushButton* refine_button() const { return refine_; }
  QPushButton* cancel_button() const { return cancel_; }

 private:
  void point_done(const std::shared_ptr<RefineJob>& job, std::size_t index, bool ok,
                  const core::RunResult& r, const QString& error);
  void finished(const std::shared_ptr<RefineJob>& job);

  std::shared_ptr<RefineJob> job_;
  QThread* thread_ = nullptr;
  int done_ = 0, failed_ = 0;
  QString first_error_;
  QPushButton* refine_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QLabel* label_ = nullptr;
  std::function<void()> on_request_;
  std::function<void(const RefinePoint&, const core::RunResult&)> on_point_;
};

}  // namespace scaleout::gui

// What every executed backend's rank does around the collective training loop, whatever moves the
// bytes (Gloo, NCCL): meet the other ranks, compute its share of the plan's FLOPs, line the ranks
// up before each step (a barrier, as nccl-tests times them), check the sums once every rank is
// through, and keep the step's times and phases for the report.
#pragma once

#include <gloo/context.h>
#include <gloo/rendezvous/store.h>

#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "core/model/step_model.hpp"
#include "core/plan/plan.hpp"
#include "core/programs/check_values.hpp"
#include "core/programs/strategies/collective_training.hpp"
#include "core/programs/strategies/model_parallel_training.hpp"
#include "exec/exec_options.hpp"
#include "exec/rank_main.hpp"

namespace scaleout::exec {

// A full mesh of Gloo connections through `store`, each wait bounded by `timeout`.
std::shared_ptr<gloo::Context> connect(gloo::rendezvous::Store& store, const RankSetup& setup,
                                       std::chrono::milliseconds timeout);

// The step model as an executed rank computes it, scaled by compute_scale: on CPUs the plan's real
// FLOPs (the model's are efficiency-adjusted; a core runs its kernel at its own rate); on GPUs the
// model's own (real / efficiency), run as products near the device's peak.
core::StepModel executed_model(const core::Plan& plan, const ExecOptions& options);
// The share of the charged FLOPs (real / efficiency) an executed rank runs: compute_scale times the
// efficiency on CPUs, compute_scale alone on GPUs.
double executed_compute_scale(const core::Plan& plan, const ExecOptions& options);

// Words a compressed exchange needs after the gradient (the largest bucket's; buckets go one
// after the other); 0 without compression.
std::int64_t compressed_scratch_words(const core::Plan& plan, const core::StepModel& model);

// Elements of `got` that differ from `expected`: any difference, or with `tolerance` above 0,
// more than tolerance x the largest |expected|.
long count_differing(const std::vector<float>& got, const std::vector<float>& expected,
                     double tolerance);

// A model-parallel rank's report of each step, whatever moves its bytes: start, end, compute,
// tensor and data seconds, wrong elements (the "mp_steps" of its report).
class ModelParallelStepReports : public core::ModelParallelObserver {
 public:
  void step_done(int, const core::ModelParallelStepTimes& t) override;
  nlohmann::json steps = nlohmann::json::array();
  double origin = 0;  // subtracted from start and end: the fabric's time when the ranks met
};

// The value a model-parallel check's label `tag` gives element `i` of a span: a small integer,
// exact in every precision.
inline float model_parallel_label(std::uint64_t tag, std::int64_t i) {
  return static_cast<float>((tag * 31 + static_cast<std::uint64_t>(i)) % 251 + 1);
}

// A model-parallel rank's checks on its buffer, wherever the buffer lives: the subclass reads and
// writes spans as floats (host memory for Gloo ranks, device memory for NCCL ranks).
class SpanChecks : public core::ModelParallelChecks {
 public:
  SpanChecks(const core::CheckValues& values, double exact_limit)
      : values_(values), limit_(exact_limit) {}
  void label(core::Span s, std::uint64_t tag) override;
  long mislabelled(core::Span s, std::uint64_t tag) const override;
  void fill(core::Span s, float value) override;
  long differs(core::Span s, float value) const override;
  long differs_from_sum(core::Span s, const std::vector<int>& ranks) const override;
  double exact_limit() const override { return limit_; }

 protected:
  virtual std::vector<float> read(core::Span s) const = 0;
  virtual void write(core::Span s, const std::vector<float>& values) = 0;

 private:
  const core::CheckValues& values_;
  double limit_;
};

class StepObserver : public core::CollectiveObserver {
 public:
  // `fill_ahead` writes a worker's known values before the step's clock starts (so the check
  // costs the step nothing); `count_wrong` counts a worker's elements that differ from the exact
  // sums; `corrupt_one` spoils one element of the gradient (the test hook of
  // ExecOptions::corrupt_rank); `sync` carries the barriers (connections of its own: Gloo's barrier
  // shrinks its connections' send buffers, which would slow bulk transfers).
  StepObserver(const ExecOptions& options, std::shared_ptr<gloo::Context> sync, bool worker,
               std::function<void()> fill_ahead, std::function<long()> count_wrong,
               std::function<void()> corrupt_one);
  void step_starting(int rank, int step) override;
  void step_done(int rank, const core::StepTimes& t) override;
  void phase(int rank, const std::string& name, const char* category, double start,
             double end) override;

  nlohmann::json steps = nlohmann::json::array();   // {start, compute_end, comm_s, end, wrong}
  nlohmann::json phases = nlohmann::json::array();  // [name, category, start, end], when tracing

 private:
  // A barrier on `sync`; a rank missing past the deadline throws naming this rank and `where`.
  void barrier(const std::string& where);
  const ExecOptions& options_;
  std::shared_ptr<gloo::Context> sync_;
  bool worker_;
  std::function<void()> fill_ahead_;
  std::function<long()> count_wrong_;
  std::function<void()> corrupt_one_;
};

}  // namespace scaleout::exec

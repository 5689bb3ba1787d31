// The closed forms as an engine: in this process, one plan after another, the topology built once
// for plans that share a cluster.
#include <algorithm>
#include <exception>
#include <optional>

#include "analytic/analytic.hpp"
#include "analytic/analytic_model_parallel.hpp"
#include "core/parallel/parallel_state.hpp"
#include "explore/engines/engines.hpp"

namespace scaleout::sim {

namespace {

class AnalyticEngine : public PredictionEngine {
 public:
  explicit AnalyticEngine(const std::atomic<bool>* cancel) : cancel_(cancel) {}

  Engine kind() const override { return Engine::kAnalytic; }

  // The closed forms refuse while they predict (a layout a strategy cannot use, more workers than
  // devices): nothing to refuse before.
  void check(const core::Plan&) const override {}

  // The topology is built when a plan first needs it (a model-parallel plan's closed form builds
  // its own groups' times instead).
  void prepare(const core::Cluster& cluster, int max_devices, bool one_strategy) override {
    prepared_ = Prepared{cluster, max_devices};
    model_.reset();
    times_.reset();
    if (one_strategy) times_.emplace();
  }

  core::RunResult predict(const core::Plan& plan) override {
    if (!prepared_) return predict_analytic(plan);
    if (plan.parallelism && times_) return predict_model_parallel(plan, &*times_);
    return model().predict(plan);
  }

  // Each run of alike plans on one model, built for the largest of them; a cancel stops it
  // between two plans.
  bool predict_each(const PlanBatch& batch, std::size_t begin, std::size_t end, const OnDone& done,
                    const OnFailed& failed) override {
    while (begin < end) {
      std::size_t stop = begin + 1;
      int max_devices = core::devices_needed(batch.plan(begin));
      if (batch.alike)
        for (; stop < end && batch.alike(stop) == batch.alike(begin); ++stop)
          max_devices = std::max(max_devices, core::devices_needed(batch.plan(stop)));
      prepare(batch.plan(begin).cluster, max_devices, false);
      for (std::size_t i = begin; i < stop; ++i) {
        if (cancel_ && cancel_->load()) return false;
        std::optional<core::RunResult> r;
        try {
          r = predict(batch.plan(i));
        } catch (const std::exception& e) {
          failed(i, e.what());
        }
        if (r) done(i, std::move(*r));
      }
      begin = stop;
    }
    return true;
  }

  std::optional<double> exchange_time(const core::Plan& plan, double bytes) const override {
    if (prepared_) return model().exchange_time(plan, bytes);
    return AnalyticModel(plan.cluster, core::devices_needed(plan)).exchange_time(plan, bytes);
  }

 private:
  struct Prepared {
    core::Cluster cluster;
    int max_devices = 1;
  };
  const AnalyticModel& model() const {
    if (!model_) model_.emplace(prepared_->cluster, prepared_->max_devices);
    return *model_;
  }

  const std::atomic<bool>* cancel_;
  std::optional<Prepared> prepared_;
  mutable std::optional<AnalyticModel> model_;
  std::optional<GroupTimes> times_;  // prepared for one strategy only
};

}  // namespace

std::unique_ptr<PredictionEngine> make_analytic_engine(const std::atomic<bool>* cancel) {
  return std::make_unique<AnalyticEngine>(cancel);
}

}  // namespace scaleout::sim

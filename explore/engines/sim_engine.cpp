// SimGrid as an engine: each plan in a child process of its own (one SimGrid engine a process),
// at most `jobs` side by side.
#include <exception>
#include <optional>
#include <utility>

#include "explore/engines/engines.hpp"
#include "explore/engines/sim_children.hpp"
#include "sim/simulator.hpp"

namespace scaleout::sim {

namespace {

class SimEngine : public PredictionEngine {
 public:
  explicit SimEngine(EngineOptions options) : options_(std::move(options)) {}

  Engine kind() const override { return Engine::kSim; }
  void check(const core::Plan& plan) const override { check_simulation(plan, options_.sim); }
  void prepare(const core::Cluster&, int, bool) override {}  // each simulation builds its own
  core::RunResult predict(const core::Plan& plan) override { return simulate(plan, options_.sim); }

  bool predict_each(const PlanBatch& batch, std::size_t begin, std::size_t end, const OnDone& done,
                    const OnFailed& failed) override {
    SimChildren children(options_.jobs);
    std::size_t next = begin;
    while (next < end || !children.empty()) {
      for (; next < end && children.has_room(); ++next) {
        try {
          children.start(batch.plan(next), options_.sim, next);
        } catch (const std::exception& e) {  // refused before it starts (too many messages, ...)
          failed(next, e.what());
        }
      }
      if (children.empty()) continue;
      auto ended = children.wait_one(options_.cancel, options_.on_running);
      if (!ended) return false;  // cancelled: the children are killed as `children` goes
      auto [child, index, status] = *ended;
      std::optional<core::RunResult> r;
      try {
        r = collect_simulation(child, status);
      } catch (const std::exception& e) {
        failed(index, e.what());
      }
      if (r) done(index, std::move(*r));
    }
    return true;
  }

  std::optional<double> exchange_time(const core::Plan&, double) const override {
    return std::nullopt;
  }

 private:
  EngineOptions options_;
};

}  // namespace

std::unique_ptr<PredictionEngine> make_sim_engine(EngineOptions options) {
  return std::make_unique<SimEngine>(std::move(options));
}

}  // namespace scaleout::sim

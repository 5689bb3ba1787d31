// simulate_model_parallel_here (sim/sim_engine.hpp): a plan with `parallelism:` on SimGrid. Every
// rank runs the model-parallel training program
// (core/programs/strategies/model_parallel_training.hpp) on the simulated fabric, so the tensor
// groups' all-reduces, the stages' transfers and the data groups' exchanges share the platform's
// links as they would share the cluster's.
#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "core/formats/trace.hpp"
#include "core/model/model_memory.hpp"
#include "core/model/model_parallel_work.hpp"
#include "core/parallel/parallel_state.hpp"
#include "core/parallel/rank_plan.hpp"
#include "core/plan/input_error.hpp"
#include "core/programs/strategies/model_parallel_training.hpp"
#include "core/results/model_parallel_outcome.hpp"
#include "sim/checkpoint_transfers.hpp"
#include "sim/link_loads.hpp"
#include "sim/platform.hpp"
#include "sim/rail_bundle.hpp"
#include "sim/sim_engine.hpp"
#include "sim/sim_fabric.hpp"

namespace scaleout::sim {

namespace sg4 = simgrid::s4u;
using core::ModelParallelStepTimes;
using core::Plan;

namespace {

struct MpRun {
  SimWorld world;
  std::vector<std::unique_ptr<SimFabric>> fabrics;
  std::unique_ptr<core::ModelParallelTraining> training;
  std::vector<std::vector<ModelParallelStepTimes>> records;  // [rank][step]
  core::Trace* trace = nullptr;
  std::vector<int> tracks;
  int finished = 0;
};

class MpRecorder : public core::ModelParallelObserver {
 public:
  explicit MpRecorder(MpRun& run) : run_(run) {}
  void step_done(int rank, const ModelParallelStepTimes& t) override {
    run_.records[rank][t.step] = t;
  }
  void phase(int rank, const std::string& name, const char* category, double start,
             double end) override {
    if (run_.trace) run_.trace->span(run_.tracks[rank], name, category, start, end - start);
  }

 private:
  MpRun& run_;
};

void mp_rank(MpRun* run, MpRecorder* recorder, int rank) {
  run->training->run(*run->fabrics[rank], *recorder);
  run->fabrics[rank]->stop_receiving_ahead();
  ++run->finished;
}

// Transfers a rank keeps in flight itself: all it posts in an iteration (the receives from both
// neighbours, its sends, a collective's run), so that no relay actors are needed. Relays post a
// rank's transfers one batch after another; receives from one neighbour posted in a row would
// each start a relay of their own.
int direct_transfers(const core::ModelSplit& s, const SimOptions& options) {
  std::int64_t in_flight = 4LL * s.microbatches * s.chunks + 64;
  return static_cast<int>(std::max<std::int64_t>(direct_comms(options), in_flight));
}

void set_up(MpRun& run, const Plan& plan, const core::ParallelState& state,
            const core::RankPlan& ranks, const SimPlatform& platform, const SimOptions& options,
            core::Trace* trace) {
  set_up_world(run.world, plan, ranks, platform, options.fidelity,
               plan.training.gradient_bytes_per_element, direct_transfers(state.split(), options));
  // Sends taken by their receivers leave the sender's pending transfers at once, and stages
  // receive from their neighbours ahead (SimFabric): the same transfers at the same times, at a
  // fraction of SimGrid's cost. shortcuts.release_taken = false turns both off (the tests compare).
  bool hold = !options.shortcuts.release_taken;
  run.world.track_delivered = !hold;
  run.world.receivers_ahead = !hold;
  std::vector<int> rank_node;
  for (int r = 0; r < ranks.ranks(); ++r) {
    run.fabrics.push_back(std::make_unique<SimFabric>(run.world, r));
    rank_node.push_back(ranks.node_of_rank(r));
  }
  run.training = std::make_unique<core::ModelParallelTraining>(plan, rank_node);
  run.records.assign(ranks.ranks(), std::vector<ModelParallelStepTimes>(plan.training.steps));
  run.trace = trace;
  if (trace)
    for (int r = 0; r < ranks.ranks(); ++r) {
      int stage = state.coordinates(r).stage;
      run.tracks.push_back(
          trace->add_track("stage " + std::to_string(stage) + ", rank " + std::to_string(r)));
    }
}

// The step's parts on its busiest rank (the most compute and tensor time), averaged over steps.
core::ModelParallelPhases phases_of(const MpRun& run, const Plan& plan,
                                    const core::ParallelState& state, double step) {
  core::ModelParallelPhases ph = core::phases_from_records(run.records, step);
  core::ModelParallelWork w = core::model_parallel_work(plan, state.split());
  ph.pipeline =
      core::pipeline_transfers(state, core::stage_transfers(plan, state, w.activation_bytes));
  ph.data_bytes = w.gradient_bytes;
  return ph;
}

core::RunResult assemble(MpRun& run, const Plan& plan, const core::ParallelState& state,
                         const core::RankPlan& ranks, const SimOptions& options) {
  int steps = plan.training.steps;
  std::vector<double> step_end(steps, 0.0), step_start(steps, 0.0);
  for (const auto& rank : run.records)
    for (int s = 0; s < steps; ++s) step_end[s] = std::max(step_end[s], rank[s].end);
  for (int s = 1; s < steps; ++s) step_start[s] = step_end[s - 1];
  core::RunResult r = core::model_parallel_result(
      plan, "sim", phases_of(run, plan, state, step_end.back() / steps));
  r.fidelity = fidelity_name(fidelity_for(plan, options.fidelity));
  r.steps.clear();
  for (int s = 0; s < steps; ++s) r.steps.push_back({s, step_end[s] - step_start[s]});
  r.links = link_loads(ranks.topology, run.world, step_start, step_end, run.trace);
  if (state.split().pipeline > 1)  // one stage has no transfers to time
    r.warnings.push_back(
        "pipeline_comm_s is the closed form's (the simulation times the stages' transfers on the "
        "links, inside the step and the bubble, not one by one)");
  return r;
}

}  // namespace

core::RunResult simulate_model_parallel_here(const Plan& plan, const SimOptions& options) {
  auto wall0 = std::chrono::steady_clock::now();
  core::check_memory_fits(plan);
  SimSetup setup = set_up_simulation(plan, options, [](const core::RankPlan& ranks) {
    return static_cast<std::int64_t>(ranks.ranks()) + 1;  // the ranks and SimGrid's own
  });
  const core::RankPlan& ranks = setup.ranks;
  SimPlatform& platform = setup.platform;
  auto& engine = setup.engine;
  MpRun run;
  core::Trace trace;
  const core::ParallelState state = core::ParallelState::of(plan);
  set_up(run, plan, state, ranks, platform, options, options.trace_path.empty() ? nullptr : &trace);
  MpRecorder recorder(run);
  for (int r = 0; r < ranks.ranks(); ++r)
    sg4::Actor::create("rank" + std::to_string(r), run.world.rank_host[r], mp_rank, &run, &recorder,
                       r);
  engine->run();
  if (run.finished != ranks.ranks())
    throw std::runtime_error("the simulation stopped with " +
                             std::to_string(ranks.ranks() - run.finished) +
                             " ranks still waiting (a deadlock in the model-parallel program)");
  core::RunResult result = assemble(run, plan, state, ranks, options);
  time_checkpoints_on_links(result, plan, *engine, platform, run.world.rank_device);
  if (setup.bundled) result.warnings.push_back(rails_bundled_warning(plan));
  result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  if (run.trace)
    trace.write(options.trace_path,
                "sim model-parallel, " + std::to_string(ranks.ranks()) + " ranks");
  return result;
}

}  // namespace scaleout::sim

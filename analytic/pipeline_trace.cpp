#include "analytic/pipeline_trace.hpp"

#include <string>

#include "analytic/analytic_model_parallel.hpp"
#include "core/parallel/model_split.hpp"
#include "core/parallel/parallel_state.hpp"
#include "core/parallel/pipeline_schedule.hpp"

namespace scaleout::sim {

core::Trace pipeline_trace(const core::Plan& plan) {
  const core::ParallelState state = core::ParallelState::of(plan);
  PipeTiming timing = time_plan_pipeline(plan, state, model_parallel_costs(plan, state));
  core::Trace trace;
  for (std::size_t s = 0; s < timing.stages.size(); ++s) {
    int track = trace.add_track("stage " + std::to_string(s));
    for (const TimedOp& t : timing.stages[s]) {
      // The timeline colours "forward", "backward" and the zero-bubble schedule's "weight" passes
      // apart; the micro-batch is in the order.
      trace.span(track, core::pass_name(t.op.kind), "compute", t.start, t.end - t.start);
    }
  }
  return trace;
}

std::string pipeline_trace_name(const core::Plan& plan) {
  core::ModelSplit s = core::model_split(plan);
  std::string name =
      "closed form: " + std::string(core::schedule_name(plan.parallelism->schedule)) + ", " +
      std::to_string(s.pipeline) + (s.pipeline == 1 ? " stage, " : " stages, ") +
      std::to_string(s.microbatches) + " micro-batches";
  if (s.chunks > 1) name += ", " + std::to_string(s.chunks) + " chunks a stage";
  return name;
}

}  // namespace scaleout::sim

#include "core/reliability/failure_model.hpp"

namespace scaleout::core {

ResilienceOutcome restart_from_checkpoint(const std::vector<double>& step_times,
                                          const Resilience& r, double samples_per_step) {
  ResilienceOutcome out;
  out.policy = r.failures.empty() ? "none" : "restart_from_checkpoint";
  std::vector<bool> fired(r.failures.size(), false);
  int steps = static_cast<int>(step_times.size());
  int step = 0, checkpointed = 0;
  double t = 0, since_checkpoint = 0;
  while (step < steps) {
    double dt = step_times[step];
    int hit = -1;
    double at = 0;
    for (std::size_t i = 0; i < r.failures.size() && hit < 0; ++i) {
      const Failure& f = r.failures[i];
      if (fired[i]) continue;
      if (f.at_step >= 0 && f.at_step == step) {
        hit = static_cast<int>(i);
        at = t;
      } else if (f.at_time >= 0 && f.at_time < t + dt) {
        hit = static_cast<int>(i);
        at = std::max(t, f.at_time);
      }
    }
    if (hit >= 0) {
      fired[hit] = true;
      ++out.failures;
      out.lost_work_s += since_checkpoint + (at - t);
      out.restart_s += r.restart_time;
      t = at + r.restart_time;
      step = checkpointed;
      since_checkpoint = 0;
      continue;
    }
    t += dt;
    since_checkpoint += dt;
    ++step;
    if (r.checkpoint_every > 0 && step % r.checkpoint_every == 0 && step < steps) {
      t += r.checkpoint_cost;
      out.checkpoint_s += r.checkpoint_cost;
      checkpointed = step;
      since_checkpoint = 0;
    }
  }
  out.wall_s = t;
  out.goodput_samples_per_s = t > 0 ? steps * samples_per_step / t : 0;
  return out;
}

ResilienceOutcome restart_uniform_steps(long steps, double step_time, const Resilience& r,
                                        double samples_per_step) {
  if (!r.failures.empty())
    return restart_from_checkpoint(std::vector<double>(steps, step_time), r, samples_per_step);
  ResilienceOutcome out;
  // A checkpoint after every `checkpoint_every` steps but the last.
  long checkpoints = r.checkpoint_every > 0 && steps > 0 ? (steps - 1) / r.checkpoint_every : 0;
  out.checkpoint_s = checkpoints * r.checkpoint_cost;
  out.wall_s = steps * step_time + out.checkpoint_s;
  out.goodput_samples_per_s = out.wall_s > 0 ? steps * samples_per_step / out.wall_s : 0;
  return out;
}

}  // namespace scaleout::core

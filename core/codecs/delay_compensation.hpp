// Delay-compensated asynchronous SGD (DC-ASGD, Zheng et al. 2017) on a parameter server: the
// update a server applies, where it keeps the workers' pulled parameters, and what that costs.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "core/plan/plan.hpp"
#include "core/programs/fabric.hpp"

namespace scaleout::core {

// w[i] -= learning_rate * (g[i] + lambda * g[i] * g[i] * (w[i] - pulled[i])), i < count: the
// gradient g was computed on `pulled`, the parameters the worker pulled; w has moved since.
void compensated_update(float* w, const float* g, const float* pulled, std::int64_t count,
                        float lambda, float learning_rate);

// Where a server shard keeps worker `worker`'s pulled copy of its shard, in words of the rank's
// buffer: after the gradient's `elements`, one slot of `slot` words per worker.
inline std::int64_t pulled_copy_offset(std::int64_t elements, std::int64_t slot, int worker) {
  return elements + slot * worker;
}

// What delay compensation costs a server (sizes of the largest shard).
struct CompensationCost {
  double lambda = 0;
  double learning_rate = 0;
  double update_s = 0;      // one push's update and its pull's copy, at host.compensate_rate
  double pulled_bytes = 0;  // per server: every worker's pulled copy of its shard (fp32)
};

// The cost for a plan with delay compensation on; nullopt when it is off.
std::optional<CompensationCost> compensation_cost(const Plan& plan);

// Words a rank's buffer holds beyond the gradient: a server's pulled copies (0 for workers, and
// when compensation is off). `servers` shards split `elements`.
std::int64_t compensation_scratch_words(const Plan& plan, std::int64_t elements, int servers);

// One gradient a shard applied: whose, and how many versions the shard moved between the worker's
// pull and this update (what the server reports as its staleness).
struct AppliedGradient {
  int worker = 0;
  int staleness = 0;
};

// The parameters a compensating shard of `count` elements holds after applying `applied` in order,
// replayed from zero parameters: the k-th update's gradient was computed on the parameters after
// k - staleness updates. gradient(worker, i): worker's gradient at the shard's element i (the
// same every step). For the executed runs' exact check.
std::vector<float> replay_compensated_shard(
    const DelayCompensation& dc, std::int64_t count, const std::vector<AppliedGradient>& applied,
    const std::function<float(int, std::int64_t)>& gradient);

}  // namespace scaleout::core

// A fabric that moves real floats between threads of one process: each rank is a thread with its
// own gradient buffer. Used to check that every strategy computes exact sums, independently of
// any engine's timing.
#pragma once

#include <functional>
#include <vector>

#include "core/plan/plan.hpp"
#include "core/programs/strategy.hpp"
#include "exec/op_groups.hpp"

namespace scaleout::testing {

// Runs `program` on `workers` + `servers` threads over buffers of `elements` floats, for each of
// `buckets` (spans covering the buffer). Worker r starts with value(r, i) at element i. Returns
// the workers' final buffers. Throws std::runtime_error when a receive waits more than 10 s.
std::vector<std::vector<float>> run_in_memory(core::StrategyProgram& program, int workers,
                                              int servers, std::int64_t elements,
                                              const std::vector<core::Span>& buckets);

// Runs `body` on every rank (its own thread and buffer, workers initialised as above, servers
// with zeros). Returns the buffers of the workers, and of the servers after them when asked.
std::vector<std::vector<float>> run_ranks_in_memory(
    int workers, int servers, std::int64_t elements, const std::function<void(core::Fabric&)>& body,
    bool keep_servers, std::vector<std::vector<exec::PointOp>>* record = nullptr);

// Runs `program` as run_in_memory does and returns every rank's sends and receives in the order
// it posted them (what a fabric's schedule must match).
std::vector<std::vector<exec::PointOp>> record_in_memory(core::StrategyProgram& program,
                                                         int workers, int servers,
                                                         std::int64_t elements,
                                                         const std::vector<core::Span>& buckets);

// Small integers, so that sums of up to thousands of ranks are exact in float.
inline float initial_value(int rank, std::int64_t i) {
  return static_cast<float>((rank + 1) * (i % 5 + 1));
}

}  // namespace scaleout::testing

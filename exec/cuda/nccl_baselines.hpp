// NCCL's own collectives on the same known values as our steps, timed as our steps are: each run
// starts after a barrier, `repeats` runs, the sums checked after every run. The all-reduce out of
// place and in place (NCCL's own choice of algorithm, then forced to Ring and to Tree), and for
// torus2d the same three phases on NCCL's row and column communicators (reduce-scatter along rows,
// all-reduce along columns, all-gather along rows).
#pragma once

#include <nccl.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/programs/check_values.hpp"
#include "exec/cuda/nccl_fabric.hpp"

namespace scaleout::exec {

// Elements of `got` that differ from the exact all-reduce sums.
long count_wrong(const std::vector<float>& got, const core::CheckValues& values);

class NcclBaselines {
 public:
  // `fabric` supplies the known values, the stream and the deadline; `comm` is its communicator.
  NcclBaselines(NcclFabric& fabric, ncclComm_t& comm, std::function<void()> barrier,
                const core::CheckValues& values, std::int64_t elements, int repeats);

  // {"name", "times_s", "wrong"} as the report's baselines hold them.
  nlohmann::json all_reduce(bool in_place);
  // The out-of-place all-reduce on a communicator made with NCCL_ALGO=`algorithm` ("Ring",
  // "Tree"). NCCL reads the variable when it tunes a new communicator, so a split of ours made
  // under it keeps that choice. Where NCCL has no such algorithm for this communicator (Tree on
  // some single-node layouts) the entry holds "error" instead of times.
  nlohmann::json all_reduce_with(const char* algorithm);
  // Rows of `x` ranks, rank r at row r / x and column r % x (as our torus2d).
  nlohmann::json torus2d(int x);

 private:
  // Times `run` (queued on the fabric's stream) `repeats_` times after `prepare`; checks `out`.
  nlohmann::json time_runs(const std::string& name, const std::function<void()>& prepare,
                           const std::function<void()>& run, const void* out);
  nlohmann::json time_all_reduce(const std::string& name, bool in_place, ncclComm_t comm);

  NcclFabric& fabric_;
  ncclComm_t& comm_;
  std::function<void()> barrier_;
  const core::CheckValues& values_;
  std::int64_t elements_;
  int repeats_;
};

}  // namespace scaleout::exec

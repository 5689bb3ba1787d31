// The GPU backend as the rest of exec sees it: built from exec/cuda/ when the build has CUDA and
// NCCL, from cuda_backend_none.cpp otherwise, so that nothing outside exec/cuda needs nvcc.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "core/plan.hpp"
#include "exec/local_run.hpp"
#include "exec/rank_main.hpp"

namespace scaleout::exec {

// Whether this build has the CUDA + NCCL fabric.
bool cuda_built();

// Why `ranks` ranks cannot run on this machine's GPUs ("" when they can): no CUDA in the build,
// no driver or device (any cudaGetDeviceCount error), or fewer devices than ranks.
std::string cuda_unavailable(int ranks);

// One rank of a `--backend cuda` run, as run_rank is for Gloo: rank r drives device
// r % device count, NCCL moves the gradient, and the report has the same keys.
void run_cuda_rank(const core::Plan& plan, const ExecOptions& options, const RankSetup& setup,
                   const std::function<void(const nlohmann::json&)>& finish);

}  // namespace scaleout::exec

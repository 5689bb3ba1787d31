// A model-parallel plan's rank on a GPU (exec/cuda/nccl_model_parallel_rank.cpp).
#pragma once

#include <gloo/context.h>
#include <nccl.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "core/plan/plan.hpp"
#include "exec/exec_options.hpp"
#include "exec/rank_main.hpp"

namespace scaleout::exec {

// Runs one checked warm-up iteration, then the plan's steps, on an open communicator (REQUIRES:
// plan.parallelism, a gpipe or 1f1b schedule, a collective strategy); returns the rank's report
// with the Gloo ranks' keys ("mp_steps": start, end, compute, tensor, data, wrong per step).
nlohmann::json train_model_parallel(const core::Plan& plan, const ExecOptions& options,
                                    const RankSetup& setup, ncclComm_t& comm,
                                    const std::shared_ptr<gloo::Context>& sync);

}  // namespace scaleout::exec

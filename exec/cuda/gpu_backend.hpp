// What the GPU backend plugin (libscaleout-cuda.so) implements: the functions behind
// exec/cuda_backend.hpp, named apart so that a program may link this library and the loader both
// (the GPU tests do). Only exec/cuda/ and the plugin's entry point call these directly.
#pragma once

#include "exec/cuda_backend.hpp"

namespace scaleout::exec::gpu {

// Why `ranks` ranks cannot run on this machine's GPUs, "" when they can (a probe in a child
// process: a process that has initialised CUDA cannot hand its devices to the ranks it forks).
std::string unavailable(int ranks);

// As run_cuda_rank, make_device_worker, calibrate_gpus and make_gpu_product_timer say.
void run_rank(const core::Plan& plan, const ExecOptions& options, const RankSetup& setup,
              const std::function<void(const nlohmann::json&)>& finish);
DeviceWorker make_device_worker(int rank, std::int64_t gradient_bytes);
Calibration calibrate();
std::unique_ptr<core::ProductTimer> make_product_timer();

}  // namespace scaleout::exec::gpu

// The GPU backend as the rest of exec sees it. Its code (exec/cuda/) is a plugin opened at the
// first call here (exec/cuda_backend_loader.cpp), so that nothing outside exec/cuda needs nvcc and
// no program maps CUDA or NCCL before a command asks for a GPU.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "core/model/efficiency_table.hpp"
#include "core/plan/plan.hpp"
#include "exec/calibrate.hpp"
#include "exec/exec_options.hpp"
#include "exec/rank_main.hpp"

namespace scaleout::exec {

// Whether the CUDA + NCCL backend could be loaded: the build has it, its plugin is installed
// beside the program and the libraries it needs (CUDA's, NCCL's) are found.
bool cuda_built();

// Why `ranks` ranks cannot run on this machine's GPUs ("" when they can): no CUDA in the build,
// the plugin missing or not loadable (the message names the library the loader could not find),
// no driver or device (any cudaGetDeviceCount error), or fewer devices than ranks.
std::string cuda_unavailable(int ranks);

// One rank of a `--backend cuda` run, as run_rank is for Gloo: rank r drives device
// r % device count, NCCL moves the gradient, and the report has the same keys.
void run_cuda_rank(const core::Plan& plan, const ExecOptions& options, const RankSetup& setup,
                   const std::function<void(const nlohmann::json&)>& finish);

// A parameter-server worker on a GPU beside CPU servers: `compute` runs a phase as the NCCL
// fabric does (cuBLAS products on device rank % device count, returning when they are done);
// `stage(bytes)` copies that many bytes of the gradient from device memory to pinned host memory,
// as a push must before its bytes leave over TCP. Both may be called from different threads.
struct DeviceWorker {
  std::function<void(double)> compute;
  std::function<void(std::int64_t)> stage;
};
DeviceWorker make_device_worker(int rank, std::int64_t gradient_bytes);

// What `calibrate --backend cuda` measures on this machine's GPUs: the compute phase's rate (the
// bf16 products the fabric runs), the add kernel's rate, and with two GPUs or more the link
// between devices 0 and 1 through NCCL (latency: half the median round trip of a one-element
// send; bandwidth: a 256 MB one-way send). No inter-node link (one machine). Throws CudaError.
Calibration calibrate_gpus();

// Times matrix products on GPU 0 with cuBLAS (bf16 operands and output, fp32 accumulation; short
// products launched back to back, a millisecond's worth a sample; the median of 7 samples after a
// warm-up; a batch too large for a quarter of the free memory timed in part and scaled), for
// `calibrate --backend cuda --model`. Throws CudaError.
std::unique_ptr<core::ProductTimer> make_gpu_product_timer();

}  // namespace scaleout::exec

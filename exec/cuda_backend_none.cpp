// A build without CUDA: the GPU backend only says why it is unavailable.
#include <stdexcept>

#include "exec/cuda_backend.hpp"

namespace scaleout::exec {

bool cuda_built() { return false; }

std::string cuda_unavailable(int) {
  return "this build has no CUDA backend (configure with the CUDA toolkit and NCCL installed, "
         "-DSCALEOUT_CUDA=ON)";
}

void run_cuda_rank(const core::Plan&, const ExecOptions&, const RankSetup&,
                   const std::function<void(const nlohmann::json&)>&) {
  throw std::runtime_error(cuda_unavailable(0));
}

DeviceWorker make_device_worker(int, std::int64_t) {
  throw std::runtime_error(cuda_unavailable(0));
}

Calibration calibrate_gpus() { throw std::runtime_error(cuda_unavailable(0)); }

std::unique_ptr<core::ProductTimer> make_gpu_product_timer() {
  throw std::runtime_error(cuda_unavailable(0));
}

}  // namespace scaleout::exec

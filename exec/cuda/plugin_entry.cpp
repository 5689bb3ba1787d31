// The GPU backend plugin's one exported symbol: the table of exec/cuda_plugin.hpp, filled with the
// functions of exec/cuda/gpu_backend.hpp.
#include "exec/cuda/gpu_backend.hpp"
#include "exec/cuda_plugin.hpp"

extern "C" __attribute__((visibility("default"))) const scaleout::exec::CudaBackendTable*
scaleout_cuda_backend() {
  namespace gpu = scaleout::exec::gpu;
  static const scaleout::exec::CudaBackendTable table = {
      scaleout::exec::kCudaPluginSizes, gpu::unavailable, gpu::run_rank,
      gpu::make_device_worker,          gpu::calibrate,   gpu::make_product_timer};
  return &table;
}

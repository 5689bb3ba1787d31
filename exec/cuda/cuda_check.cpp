#include "exec/cuda/cuda_check.hpp"

#include <string>

namespace scaleout::exec {

void check_cuda(cudaError_t status, const char* call) {
  if (status != cudaSuccess) throw CudaError(std::string(call) + ": " + cudaGetErrorString(status));
}

void check_nccl(ncclResult_t status, const char* call) {
  if (status != ncclSuccess && status != ncclInProgress)
    throw CudaError(std::string(call) + ": " + ncclGetErrorString(status));
}

}  // namespace scaleout::exec

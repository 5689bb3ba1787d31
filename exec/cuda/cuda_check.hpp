// CUDA and NCCL calls that fail throw, with the call and the library's own words.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <stdexcept>

namespace scaleout::exec {

class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void check_cuda(cudaError_t status, const char* call);
void check_nccl(ncclResult_t status, const char* call);

}  // namespace scaleout::exec

#define SCALEOUT_CUDA_CHECK(call) ::scaleout::exec::check_cuda((call), #call)
#define SCALEOUT_NCCL_CHECK(call) ::scaleout::exec::check_nccl((call), #call)

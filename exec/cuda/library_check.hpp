// cuBLAS and cuSOLVER calls that fail throw CudaError, naming the call and the library's status.
#pragma once

#include <cublas_v2.h>
#include <cusolverDn.h>

#include <string>

#include "exec/cuda/cuda_check.hpp"

namespace scaleout::exec {

inline void check_blas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw CudaError(std::string(what) + " failed: " + cublasGetStatusString(status));
}

inline void check_solver(cusolverStatus_t status, const char* what) {
  if (status != CUSOLVER_STATUS_SUCCESS)
    throw CudaError(std::string(what) + " failed: cuSOLVER status " +
                    std::to_string(static_cast<int>(status)));
}

}  // namespace scaleout::exec

// The device work of the NCCL fabric: adding a received range into the gradient, converting
// between the gradient's precision and float (known values in, checks out). All launch on `stream`
// and return at once.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "exec/element_type.hpp"

namespace scaleout::exec {

// dst[i] = dst[i] + src[i] for i < count, correctly rounded to `type` (the float sum rounded back,
// as NCCL sums halves). 16-byte vector loads when both pointers allow them.
void launch_add(ElementType type, void* dst, const void* src, std::int64_t count,
                cudaStream_t stream);

// dst (float) = src (type), and back.
void launch_to_float(ElementType type, const void* src, float* dst, std::int64_t count,
                     cudaStream_t stream);
void launch_from_float(ElementType type, const float* src, void* dst, std::int64_t count,
                       cudaStream_t stream);

}  // namespace scaleout::exec

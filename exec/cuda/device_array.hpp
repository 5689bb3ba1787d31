// Device memory for a number of elements of one type, freed on scope exit (on every path, errors
// included).
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>

#include "exec/cuda/cuda_check.hpp"
#include "exec/element_type.hpp"

namespace scaleout::exec {

class DeviceArray {
 public:
  DeviceArray(ElementType type, std::int64_t elements) {
    auto bytes =
        static_cast<std::size_t>(std::max<std::int64_t>(elements, 1)) * element_bytes(type);
    SCALEOUT_CUDA_CHECK(cudaMalloc(&data_, bytes));
  }
  ~DeviceArray() { cudaFree(data_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  void* get() const { return data_; }

 private:
  void* data_ = nullptr;
};

}  // namespace scaleout::exec

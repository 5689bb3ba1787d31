// The boundary between the `scaleout` programs and their GPU backend, a plugin opened at run time
// (exec/cuda_backend_loader.cpp) so that no command maps CUDA or NCCL until it asks for a GPU.
// The plugin exports one C function, kCudaPluginEntry, that hands back this table. Both sides are
// built from the same sources; `sizes` tells a plugin from another build apart.
#pragma once

#include <array>
#include <cstddef>

#include "exec/cuda_backend.hpp"

namespace scaleout::exec {

inline constexpr const char* kCudaPluginFile = "libscaleout-cuda.so";
inline constexpr const char* kCudaPluginEntry = "scaleout_cuda_backend";
// Where the plugin lies relative to the directory of the program that loads it: a build's
// programs sit one folder below its root (build/cli/scaleout, build/tests/...), an installed one
// in bin/, and the plugin in lib/scaleout/ below both.
inline constexpr const char* kCudaPluginDirFromProgram = "../lib/scaleout";

// The sizes of the types that cross the boundary, in the order of the table's fields.
using CudaPluginSizes = std::array<std::size_t, 5>;
inline constexpr CudaPluginSizes kCudaPluginSizes = {sizeof(core::Plan), sizeof(ExecOptions),
                                                     sizeof(RankSetup), sizeof(Calibration),
                                                     sizeof(DeviceWorker)};

struct CudaBackendTable {
  CudaPluginSizes sizes;
  std::string (*unavailable)(int ranks);
  void (*run_rank)(const core::Plan& plan, const ExecOptions& options, const RankSetup& setup,
                   const std::function<void(const nlohmann::json&)>& finish);
  DeviceWorker (*make_device_worker)(int rank, std::int64_t gradient_bytes);
  Calibration (*calibrate)();
  std::unique_ptr<core::ProductTimer> (*make_product_timer)();
};

// The plugin's entry's type: returns the table, which lives as long as the plugin.
using CudaPluginEntry = const CudaBackendTable* (*)();

}  // namespace scaleout::exec

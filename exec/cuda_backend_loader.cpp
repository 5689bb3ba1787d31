// The GPU backend as the programs reach it: the plugin libscaleout-cuda.so (exec/cuda/), opened
// at the first call that needs it, so that a command that never asks for a GPU maps no CUDA or
// NCCL library. A build without CUDA has no plugin, and every call says why.
#include <dlfcn.h>

#include <filesystem>
#include <stdexcept>
#include <string>

#include "exec/cuda_backend.hpp"
#include "exec/cuda_plugin.hpp"

namespace scaleout::exec {

namespace {

struct LoadedBackend {
  const CudaBackendTable* table = nullptr;
  std::string error;  // why there is no table
};

std::filesystem::path plugin_path() {
  std::error_code ec;
  std::filesystem::path program = std::filesystem::read_symlink("/proc/self/exe", ec);
  std::filesystem::path dir = ec ? std::filesystem::current_path() : program.parent_path();
  return (dir / kCudaPluginDirFromProgram / kCudaPluginFile).lexically_normal();
}

LoadedBackend open_plugin() {
#ifndef SCALEOUT_CUDA_PLUGIN_BUILT
  return {nullptr,
          "this build has no CUDA backend (configure with the CUDA toolkit and NCCL installed, "
          "-DSCALEOUT_CUDA=ON)"};
#else
  std::filesystem::path path = plugin_path();
  if (!std::filesystem::exists(path))
    return {nullptr, "the GPU backend is not installed: no " + path.string() +
                         " (install the scaleout-cuda package beside scaleout)"};
  // Never closed: the tables, threads and objects it hands out live until the program ends.
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return {nullptr, "the GPU backend " + path.string() + " cannot be loaded: " + ::dlerror()};
  auto entry = reinterpret_cast<CudaPluginEntry>(::dlsym(handle, kCudaPluginEntry));
  const CudaBackendTable* table = entry ? entry() : nullptr;
  if (!table || table->sizes != kCudaPluginSizes)
    return {nullptr, "the GPU backend " + path.string() +
                         " comes from another build of scaleout: install the scaleout-cuda "
                         "package of the same version"};
  return {table, ""};
#endif
}

const LoadedBackend& backend() {
  static const LoadedBackend loaded = open_plugin();
  return loaded;
}

const CudaBackendTable& table_or_throw() {
  if (!backend().table) throw std::runtime_error(backend().error);
  return *backend().table;
}

}  // namespace

bool cuda_built() { return backend().table != nullptr; }

std::string cuda_unavailable(int ranks) {
  return backend().table ? backend().table->unavailable(ranks) : backend().error;
}

void run_cuda_rank(const core::Plan& plan, const ExecOptions& options, const RankSetup& setup,
                   const std::function<void(const nlohmann::json&)>& finish) {
  table_or_throw().run_rank(plan, options, setup, finish);
}

DeviceWorker make_device_worker(int rank, std::int64_t gradient_bytes) {
  return table_or_throw().make_device_worker(rank, gradient_bytes);
}

Calibration calibrate_gpus() { return table_or_throw().calibrate(); }

std::unique_ptr<core::ProductTimer> make_gpu_product_timer() {
  return table_or_throw().make_product_timer();
}

}  // namespace scaleout::exec

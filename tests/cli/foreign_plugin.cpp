// A stand-in for a GPU plugin from another build of scaleout: it exports the entry the loader looks
// for, but its table's sizes are none of this build's (all zero), so the loader must refuse it.
#include "exec/cuda_plugin.hpp"

extern "C" __attribute__((visibility("default"))) const scaleout::exec::CudaBackendTable*
scaleout_cuda_backend() {
  static const scaleout::exec::CudaBackendTable table{};
  return &table;
}

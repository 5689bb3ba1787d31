// Timing device work as the GPU sees it: CUDA events around each run on one stream.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <functional>
#include <vector>

#include "exec/cuda/cuda_check.hpp"

namespace scaleout::exec {

// Seconds each of `runs` runs of `work` (which queues on `stream`) takes, after one warm-up run.
inline std::vector<double> time_on_stream(cudaStream_t stream, int runs,
                                          const std::function<void()>& work) {
  cudaEvent_t begin, end;
  SCALEOUT_CUDA_CHECK(cudaEventCreate(&begin));
  SCALEOUT_CUDA_CHECK(cudaEventCreate(&end));
  work();
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    SCALEOUT_CUDA_CHECK(cudaEventRecord(begin, stream));
    work();
    SCALEOUT_CUDA_CHECK(cudaEventRecord(end, stream));
    SCALEOUT_CUDA_CHECK(cudaEventSynchronize(end));
    float ms = 0;
    SCALEOUT_CUDA_CHECK(cudaEventElapsedTime(&ms, begin, end));
    times.push_back(ms / 1e3);
  }
  cudaEventDestroy(begin);
  cudaEventDestroy(end);
  return times;
}

// The median of `runs` such runs.
inline double median_seconds(cudaStream_t stream, int runs, const std::function<void()>& work) {
  std::vector<double> times = time_on_stream(stream, runs, work);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace scaleout::exec

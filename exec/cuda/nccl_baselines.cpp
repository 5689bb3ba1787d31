#include "exec/cuda/nccl_baselines.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>

#include "exec/cuda/cuda_check.hpp"
#include "exec/cuda/device_array.hpp"

namespace scaleout::exec {

long count_wrong(const std::vector<float>& got, const core::CheckValues& values) {
  long wrong = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    wrong += got[i] != values.sum(static_cast<std::int64_t>(i));
  return wrong;
}

NcclBaselines::NcclBaselines(NcclFabric& fabric, ncclComm_t& comm, std::function<void()> barrier,
                             const core::CheckValues& values, std::int64_t elements, int repeats)
    : fabric_(fabric),
      comm_(comm),
      barrier_(std::move(barrier)),
      values_(values),
      elements_(elements),
      repeats_(repeats) {}

nlohmann::json NcclBaselines::time_runs(const std::string& name,
                                        const std::function<void()>& prepare,
                                        const std::function<void()>& run, const void* out) {
  nlohmann::json times = nlohmann::json::array();
  long wrong = 0;
  for (int i = 0; i < repeats_; ++i) {
    fabric_.mark_step(i);
    fabric_.fill_gradient_ahead();
    prepare();
    fabric_.synchronize();
    barrier_();
    auto t0 = std::chrono::steady_clock::now();
    run();
    fabric_.synchronize();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    barrier_();  // as for our steps: check once every rank is through
    wrong += count_wrong(download_floats(fabric_.type(), out, elements_, fabric_.comm_stream()),
                         values_);
  }
  return {{"name", name}, {"times_s", times}, {"wrong", wrong}};
}

nlohmann::json NcclBaselines::time_all_reduce(const std::string& name, bool in_place,
                                              ncclComm_t comm) {
  DeviceArray second(fabric_.type(), in_place ? 0 : elements_);
  void* out = in_place ? fabric_.device_data() : second.get();
  auto run = [&] {
    SCALEOUT_NCCL_CHECK(
        ncclAllReduce(fabric_.device_data(), out, static_cast<std::size_t>(elements_),
                      nccl_type(fabric_.type()), ncclSum, comm, fabric_.comm_stream()));
  };
  return time_runs(
      name, [] {}, run, out);
}

nlohmann::json NcclBaselines::all_reduce(bool in_place) {
  return time_all_reduce(in_place ? "nccl_allreduce_inplace" : "nccl_allreduce", in_place, comm_);
}

nlohmann::json NcclBaselines::all_reduce_with(const char* algorithm) {
  std::string name = std::string("nccl_allreduce_") + algorithm;
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const char* before = std::getenv("NCCL_ALGO");
  std::string saved = before ? before : "";
  ::setenv("NCCL_ALGO", algorithm, 1);
  ncclComm_t forced = nullptr;
  ncclResult_t made = ncclCommSplit(comm_, 0, fabric_.rank(), &forced, nullptr);
  if (before)
    ::setenv("NCCL_ALGO", saved.c_str(), 1);
  else
    ::unsetenv("NCCL_ALGO");
  SCALEOUT_NCCL_CHECK(made);
  nlohmann::json result;
  try {
    result = time_all_reduce(name, false, forced);
  } catch (const CudaError& e) {
    // Every rank tunes alike, so every rank fails alike: none is left waiting in the collective.
    ncclCommAbort(forced);
    return {{"name", name}, {"error", e.what()}};
  }
  ncclCommDestroy(forced);
  return result;
}

nlohmann::json NcclBaselines::torus2d(int x) {
  int rank = fabric_.rank();
  ncclComm_t row = nullptr, column = nullptr;
  // Every rank splits twice, in the same order: rows keyed by column, columns keyed by row.
  SCALEOUT_NCCL_CHECK(ncclCommSplit(comm_, rank / x, rank % x, &row, nullptr));
  SCALEOUT_NCCL_CHECK(ncclCommSplit(comm_, rank % x, rank / x, &column, nullptr));
  // NCCL's reduce-scatter takes equal segments: the gradient padded with zeros to a multiple of x.
  std::int64_t segment = (elements_ + x - 1) / x;
  int size = element_bytes(fabric_.type());
  DeviceArray in(fabric_.type(), segment * x), mine(fabric_.type(), segment),
      out(fabric_.type(), segment * x);
  ncclDataType_t type = nccl_type(fabric_.type());
  cudaStream_t stream = fabric_.comm_stream();
  auto prepare = [&] {
    SCALEOUT_CUDA_CHECK(cudaMemsetAsync(in.get(), 0, segment * x * size, stream));
    SCALEOUT_CUDA_CHECK(cudaMemcpyAsync(in.get(), fabric_.device_data(), elements_ * size,
                                        cudaMemcpyDeviceToDevice, stream));
  };
  auto count = static_cast<std::size_t>(segment);
  auto run = [&] {
    SCALEOUT_NCCL_CHECK(ncclReduceScatter(in.get(), mine.get(), count, type, ncclSum, row, stream));
    SCALEOUT_NCCL_CHECK(
        ncclAllReduce(mine.get(), mine.get(), count, type, ncclSum, column, stream));
    SCALEOUT_NCCL_CHECK(ncclAllGather(mine.get(), out.get(), count, type, row, stream));
  };
  nlohmann::json result;
  try {
    result = time_runs("nccl_torus2d_rows_columns", prepare, run, out.get());
  } catch (...) {
    ncclCommAbort(row);
    ncclCommAbort(column);
    throw;
  }
  ncclCommDestroy(row);
  ncclCommDestroy(column);
  return result;
}

}  // namespace scaleout::exec

// PowerSGD's steps on the device (exec/cuda/device_codecs.hpp): the products with cuBLAS, the
// orthonormalization with cuSOLVER. Matrices are row-major as in core/codecs/powersgd_codec.hpp;
// cuBLAS reads a row-major a x b matrix as the column-major b x a one, its transpose.
#include <algorithm>
#include <string>
#include <vector>

#include "exec/cuda/codec_kernels.hpp"
#include "exec/cuda/cuda_check.hpp"
#include "exec/cuda/device_codecs.hpp"
#include "exec/cuda/library_check.hpp"

namespace scaleout::exec {

namespace {

// C (row-major a x b) = alpha x A (a x k) B^T (B row-major b x k) + beta x C: column-major,
// C^T (b x a) = B (b x k, i.e. B's buffer transposed) x A^T (A's buffer as it is).
void times_transposed(cublasHandle_t h, std::int64_t a, std::int64_t b, int k, float alpha,
                      const float* A, const float* B, float beta, float* C) {
  check_blas(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(b), static_cast<int>(a), k,
                         &alpha, B, k, A, k, &beta, C, static_cast<int>(b)),
             "cublasSgemm");
}

}  // namespace

void DeviceCodecs::encode_p(const core::LowRankCodec& codec, int rank, std::uint64_t bucket,
                            const float* grad, float* scratch) {
  const core::LowRankShape& s = codec.shape();
  State& st = state(rank, bucket);
  bool carried = codec.error_feedback() && st.has_m;
  float* m = st.m.ensure(s.rows * s.cols);
  launch_fill_matrix(m, grad, codec.count(), s.rows * s.cols, carried, stream_);
  st.has_m = true;
  if (st.q.empty()) {
    std::vector<float> first = core::low_rank_first_q(bucket, s.cols * s.rank);
    float* q = st.q.ensure(s.cols * s.rank);
    SCALEOUT_CUDA_CHECK(cudaMemcpyAsync(q, first.data(), first.size() * sizeof(float),
                                        cudaMemcpyHostToDevice, stream_));
    SCALEOUT_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  core::Span own = codec.own_area(codec.p_slot());
  float* p = scratch + own.begin;
  SCALEOUT_CUDA_CHECK(cudaMemsetAsync(p, 0, own.count * sizeof(float), stream_));  // the padding
  // P (rows x r) = M Q: column-major, P^T (r x rows) = Q^T (Q's buffer) x M^T (M's buffer).
  const float one = 1.0f, zero = 0.0f;
  check_blas(cublasSgemm(blas_, CUBLAS_OP_N, CUBLAS_OP_N, s.rank, static_cast<int>(s.rows),
                         static_cast<int>(s.cols), &one, st.q.get(), s.rank, m,
                         static_cast<int>(s.cols), &zero, p, s.rank),
             "cublasSgemm (P = M Q)");
}

void DeviceCodecs::owner_sum(const core::LowRankCodec& codec, int rank, std::int64_t slot,
                             float* scratch) {
  int part = codec.segment_of(rank);
  std::vector<const float*> parts;
  for (int w = 0; w < codec.workers(); ++w)
    parts.push_back(scratch +
                    (w == rank ? codec.own_part(slot, part) : codec.recv_slot(slot, w)).begin);
  static_assert(sizeof(const float*) == 2 * sizeof(float), "a pointer is two words");
  float* table = small_.ensure(2 * static_cast<std::int64_t>(parts.size()));
  SCALEOUT_CUDA_CHECK(cudaMemcpyAsync(table, parts.data(), parts.size() * sizeof(const float*),
                                      cudaMemcpyHostToDevice, stream_));
  launch_sum_vectors(reinterpret_cast<const float* const*>(table), codec.workers(), slot,
                     scratch + codec.sum_area(slot).begin + part * slot, stream_);
  SCALEOUT_CUDA_CHECK(cudaStreamSynchronize(stream_));  // `parts` goes out of scope
}

void DeviceCodecs::encode_q(const core::LowRankCodec& codec, int rank, std::uint64_t bucket,
                            float* scratch) {
  const core::LowRankShape& s = codec.shape();
  State& st = state(rank, bucket);
  float* p_hat = st.p_hat.ensure(s.rows * s.rank);
  SCALEOUT_CUDA_CHECK(cudaMemcpyAsync(p_hat, scratch + codec.sum_area(codec.p_slot()).begin,
                                      s.rows * s.rank * sizeof(float), cudaMemcpyDeviceToDevice,
                                      stream_));
  orthonormalize(p_hat, s.rows, s.rank);
  core::Span own = codec.own_area(codec.q_slot());
  float* q = scratch + own.begin;
  SCALEOUT_CUDA_CHECK(cudaMemsetAsync(q, 0, own.count * sizeof(float), stream_));
  // Q (cols x r) = M^T P^: column-major, Q^T (r x cols) = P^'s buffer (r x rows) x M (M's
  // buffer transposed).
  const float one = 1.0f, zero = 0.0f;
  check_blas(cublasSgemm(blas_, CUBLAS_OP_N, CUBLAS_OP_T, s.rank, static_cast<int>(s.cols),
                         static_cast<int>(s.rows), &one, p_hat, s.rank, st.m.get(),
                         static_cast<int>(s.cols), &zero, q, s.rank),
             "cublasSgemm (Q = M^T P^)");
}

void DeviceCodecs::decode_low_rank(const core::LowRankCodec& codec, int rank, std::uint64_t bucket,
                                   const float* scratch, float* grad) {
  const core::LowRankShape& s = codec.shape();
  State& st = state(rank, bucket);
  const float* q_all = scratch + codec.sum_area(codec.q_slot()).begin;
  const float* q_mine = scratch + codec.own_area(codec.q_slot()).begin;
  float* full = x_.ensure(s.rows * s.cols);
  times_transposed(blas_, s.rows, s.cols, s.rank, 1.0f, st.p_hat.get(), q_all, 0.0f, full);
  SCALEOUT_CUDA_CHECK(cudaMemcpyAsync(grad, full, codec.count() * sizeof(float),
                                      cudaMemcpyDeviceToDevice, stream_));
  // What this worker's share lost, carried when error feedback is on.
  times_transposed(blas_, s.rows, s.cols, s.rank, -1.0f, st.p_hat.get(), q_mine, 1.0f, st.m.get());
  if (!codec.error_feedback()) st.has_m = false;
  SCALEOUT_CUDA_CHECK(cudaMemcpyAsync(st.q.get(), q_all, s.cols * s.rank * sizeof(float),
                                      cudaMemcpyDeviceToDevice, stream_));
}

// P^ (row-major rows x r) replaced by the orthonormal columns of its QR factorization, each
// column's sign that of Gram-Schmidt's (R's diagonal positive), and a column that lay in the span
// of those before it zero, as the host codec makes it.
void DeviceCodecs::orthonormalize(float* p_hat, std::int64_t rows, int r) {
  auto n = static_cast<int>(rows);
  // Column-major rows x r, then tau, the columns' norms and the signs.
  float* a = work_.ensure(rows * r + 3 * r + 1);
  float *tau = a + rows * r, *norms = tau + r, *signs = norms + r;
  auto* info = reinterpret_cast<int*>(signs + r);
  const float one = 1.0f, zero = 0.0f;
  // Each transpose's destination is zeroed first: it is also geam's B, scaled by 0 (0 x NaN is not
  // 0).
  SCALEOUT_CUDA_CHECK(cudaMemsetAsync(a, 0, rows * r * sizeof(float), stream_));
  check_blas(cublasSgeam(blas_, CUBLAS_OP_T, CUBLAS_OP_N, n, r, &one, p_hat, r, &zero, a, n, a, n),
             "cublasSgeam (to column-major)");
  int lwork_qr = 0, lwork_q = 0;
  check_solver(cusolverDnSgeqrf_bufferSize(solver_, n, r, a, n, &lwork_qr), "geqrf_bufferSize");
  check_solver(cusolverDnSorgqr_bufferSize(solver_, n, r, r, a, n, tau, &lwork_q),
               "orgqr_bufferSize");
  float* lwork = small_.ensure(std::max(lwork_qr, lwork_q));
  launch_column_norms(a, rows, r, norms, stream_);
  check_solver(cusolverDnSgeqrf(solver_, n, r, a, n, tau, lwork, lwork_qr, info),
               "cusolverDnSgeqrf");
  launch_diagonal_signs(a, rows, r, norms, core::kRankTolerance, signs, stream_);
  check_solver(cusolverDnSorgqr(solver_, n, r, r, a, n, tau, lwork, lwork_q, info),
               "cusolverDnSorgqr");
  launch_scale_columns(a, rows, r, signs, stream_);
  SCALEOUT_CUDA_CHECK(cudaMemsetAsync(p_hat, 0, rows * r * sizeof(float), stream_));
  check_blas(
      cublasSgeam(blas_, CUBLAS_OP_T, CUBLAS_OP_N, r, n, &one, a, n, &zero, p_hat, r, p_hat, r),
      "cublasSgeam (to row-major)");
}

}  // namespace scaleout::exec

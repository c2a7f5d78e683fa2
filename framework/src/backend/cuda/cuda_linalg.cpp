// The CUDA backend's matmul (cuBLAS) and the GEMM path of 2-D convolution:
// im2col + cuBLAS GEMM exactly as the CPU backend does, for float64 and for any
// float32 geometry cuDNN declines (cudnn_conv.cpp).
#include <climits>
#include <string>

#include "backend/cuda/cuda_backend.h"
#include "backend/cuda/kernels.h"

namespace kiln::cuda {

namespace {

void check_int(const char* op, int64_t v) {
  if (v > INT_MAX)
    throw ValueError(std::string(op) + ": dimension " + std::to_string(v) + " exceeds cuBLAS's 32-bit limit");
}

k::ConvDims conv_dims(const backend::Conv2DParams& p) {
  return k::ConvDims{p.n,       p.h,        p.w,        p.c_in,  p.kh,    p.kw,     p.c_out, p.oh,
                     p.ow,      p.stride_h, p.stride_w, p.dil_h, p.dil_w, p.pad_top, p.pad_left};
}

bool is_pointwise(const backend::Conv2DParams& p) {
  return p.kh == 1 && p.kw == 1 && p.stride_h == 1 && p.stride_w == 1 && p.pad_top == 0 && p.pad_left == 0 &&
         p.oh == p.h && p.ow == p.w;
}

}  // namespace

// ---------------------------------------------------------------- matmul

void CudaBackend::gemm(DType dt, bool ta, bool tb, int64_t m, int64_t n, int64_t k, const void* a, int64_t a_step,
                       const void* b, int64_t b_step, void* c, int64_t batch, double beta) {
  if (m == 0 || n == 0 || batch == 0) return;
  if (k == 0) {
    if (beta == 0)
      KILN_CUDA_CHECK(cudaMemsetAsync(c, 0, static_cast<std::size_t>(batch * m * n) * dtype_size(dt), ctx_.stream()));
    return;
  }
  for (int64_t v : {m, n, k, batch}) check_int("matmul", v);
  // Row-major C = op(A)·op(B) is column-major Cᵀ = op(B)ᵀ·op(A)ᵀ: pass B first, no copies.
  const cublasOperation_t opb = tb ? CUBLAS_OP_T : CUBLAS_OP_N, opa = ta ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int ldb = static_cast<int>(tb ? k : n), lda = static_cast<int>(ta ? m : k), ldc = static_cast<int>(n);
  std::lock_guard<std::mutex> lock(ctx_.lib_mu);
  cublasHandle_t h = ctx_.blas();
  if (dt == DType::float32) {
    KILN_CUBLAS_CHECK(cublasSetMathMode(h, tf32_allowed() ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
    const float alpha = 1.0f, bt = static_cast<float>(beta);
    KILN_CUBLAS_CHECK(cublasSgemmStridedBatched(h, opb, opa, (int)n, (int)m, (int)k, &alpha,
                                                static_cast<const float*>(b), ldb, b_step,
                                                static_cast<const float*>(a), lda, a_step, &bt, static_cast<float*>(c),
                                                ldc, m * n, (int)batch));
  } else {
    const double alpha = 1.0;
    KILN_CUBLAS_CHECK(cublasDgemmStridedBatched(h, opb, opa, (int)n, (int)m, (int)k, &alpha,
                                                static_cast<const double*>(b), ldb, b_step,
                                                static_cast<const double*>(a), lda, a_step, &beta,
                                                static_cast<double*>(c), ldc, m * n, (int)batch));
  }
}

void CudaBackend::matmul(const Tensor& a, const Tensor& b, Tensor& out, bool ta, bool tb) {
  expect_here("matmul", {&a, &b, &out});
  const auto& ad = a.shape().dims();
  const auto& bd = b.shape().dims();
  const int64_t B = out.shape()[0], M = out.shape()[1], N = out.shape()[2];
  const int64_t K = ta ? ad[1] : ad[2];
  const int64_t a_step = ad[0] == 1 ? 0 : ad[1] * ad[2];
  const int64_t b_step = bd[0] == 1 ? 0 : bd[1] * bd[2];
  DeviceGuard g(index_);
  if (is_floating(a.dtype())) {
    gemm(a.dtype(), ta, tb, M, N, K, a.raw_data(), a_step, b.raw_data(), b_step, out.raw_data(), B, 0.0);
    return;
  }
  if (a.dtype() == DType::bool_) throw TypeError("matmul is not defined for bool tensors");
  k::int_matmul(to_dt(a.dtype()), a.raw_data(), b.raw_data(), out.raw_data(), B, M, N, K, ta, tb, a_step, b_step,
                ctx_.stream());
  KILN_CUDA_LAUNCHED("int_matmul");
}

// ---------------------------------------------------------------- convolution: GEMM path

void CudaBackend::conv_gemm_forward(const Tensor& x, const Tensor& w, const backend::Conv2DParams& p, Tensor& out) {
  const int64_t rows = p.n * p.oh * p.ow, K = p.kh * p.kw * p.c_in;
  if (is_pointwise(p)) {
    gemm(x.dtype(), false, false, rows, p.c_out, K, x.raw_data(), 0, w.raw_data(), 0, out.raw_data(), 1, 0.0);
    return;
  }
  Scratch col(ctx_, static_cast<std::size_t>(rows * K) * dtype_size(x.dtype()));
  k::im2col(to_dt(x.dtype()), x.raw_data(), col.get(), conv_dims(p), ctx_.stream());
  KILN_CUDA_LAUNCHED("im2col");
  gemm(x.dtype(), false, false, rows, p.c_out, K, col.get(), 0, w.raw_data(), 0, out.raw_data(), 1, 0.0);
}

void CudaBackend::conv_gemm_backward_input(const Tensor& dy, const Tensor& w, const backend::Conv2DParams& p,
                                           Tensor& dx) {
  const int64_t rows = p.n * p.oh * p.ow, K = p.kh * p.kw * p.c_in;
  if (is_pointwise(p)) {  // dX = dY · Wᵀ
    gemm(dy.dtype(), false, true, rows, K, p.c_out, dy.raw_data(), 0, w.raw_data(), 0, dx.raw_data(), 1, 0.0);
    return;
  }
  Scratch dcol(ctx_, static_cast<std::size_t>(rows * K) * dtype_size(dy.dtype()));
  gemm(dy.dtype(), false, true, rows, K, p.c_out, dy.raw_data(), 0, w.raw_data(), 0, dcol.get(), 1, 0.0);
  k::col2im(to_dt(dy.dtype()), dcol.get(), dx.raw_data(), conv_dims(p), ctx_.stream());
  KILN_CUDA_LAUNCHED("col2im");
}

void CudaBackend::conv_gemm_backward_filter(const Tensor& x, const Tensor& dy, const backend::Conv2DParams& p,
                                            Tensor& dw) {
  const int64_t rows = p.n * p.oh * p.ow, K = p.kh * p.kw * p.c_in;
  if (is_pointwise(p)) {  // dW = Xᵀ · dY
    gemm(x.dtype(), true, false, K, p.c_out, rows, x.raw_data(), 0, dy.raw_data(), 0, dw.raw_data(), 1, 0.0);
    return;
  }
  Scratch col(ctx_, static_cast<std::size_t>(rows * K) * dtype_size(x.dtype()));
  k::im2col(to_dt(x.dtype()), x.raw_data(), col.get(), conv_dims(p), ctx_.stream());
  KILN_CUDA_LAUNCHED("im2col");
  gemm(x.dtype(), true, false, K, p.c_out, rows, col.get(), 0, dy.raw_data(), 0, dw.raw_data(), 1, 0.0);
}

}  // namespace kiln::cuda

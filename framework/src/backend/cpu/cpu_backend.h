#pragma once
// Private: the CPU backend (xtensor for element-wise maths, OpenBLAS for GEMM).
#include "backend/backend.h"

namespace kiln::cpu {

/// Whether this build has the AVX-512 VNNI GEMM, and with it CpuBackend::int8_matmul_dequantize.
constexpr bool has_int8_matmul_dequantize() {
#if defined(__AVX512VNNI__) && defined(__AVX512BW__)
  return true;
#else
  return false;
#endif
}

class CpuBackend : public backend::Backend {
 public:
  Device device() const override { return Device::cpu(); }
  std::shared_ptr<Storage> allocate(std::size_t nbytes) override;
  void fill(Tensor& out, double value) override;
  void cast(const Tensor& x, Tensor& out) override;
  void strided_copy(const Tensor& src, int64_t src_off, const std::vector<int64_t>& src_strides, Tensor& dst,
                    int64_t dst_off, const std::vector<int64_t>& dst_strides, const Shape& shape,
                    bool accumulate) override;
  void unary(backend::UnaryOp op, const Tensor& x, Tensor& out) override;
  void binary(backend::BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out) override;
  void reduce(backend::ReduceOp op, const Tensor& x, Tensor& out) override;
  void arg_reduce(bool is_max, const Tensor& x, int axis, Tensor& out) override;
  void where(const Tensor& cond, const Tensor& x, const Tensor& y, Tensor& out) override;
  void gather(const Tensor& params, const Tensor& indices, int axis, Tensor& out) override;
  void scatter_add(Tensor& out, const Tensor& indices, const Tensor& updates, int axis) override;
  void one_hot(const Tensor& indices, int64_t depth, Tensor& out) override;
  void matmul(const Tensor& a, const Tensor& b, Tensor& out, bool ta, bool tb) override;
  void softmax(const Tensor& x, int axis, bool log, Tensor& out) override;
  void sparse_xent(const Tensor& labels, const Tensor& logits, Tensor& loss, Tensor& probs) override;
  void abs_max_quantize(const Tensor& x, double value_min, double value_max, double epsilon, Tensor& q,
                        Tensor& scale) override;
  void conv2d(const Tensor& x, const Tensor& w, const backend::Conv2DParams& p, Tensor& out) override;
  void conv2d_backward_input(const Tensor& dy, const Tensor& w, const backend::Conv2DParams& p, Tensor& dx) override;
  void conv2d_backward_filter(const Tensor& x, const Tensor& dy, const backend::Conv2DParams& p, Tensor& dw) override;
  bool has_depthwise_conv2d(DType dtype) const override;
  void depthwise_conv2d(const Tensor& x, const Tensor& w, const backend::Conv2DParams& p, Tensor& out) override;
  void depthwise_conv2d_backward_input(const Tensor& dy, const Tensor& w, const backend::Conv2DParams& p,
                                       Tensor& dx) override;
  void depthwise_conv2d_backward_filter(const Tensor& x, const Tensor& dy, const backend::Conv2DParams& p,
                                        Tensor& dw) override;
  bool has_fft(DType dtype) const override;
  void fft(const Tensor& re, const Tensor& im, bool inverse, Tensor& out_re, Tensor& out_im) override;
  void max_pool2d(const Tensor& x, const backend::Pool2DParams& p, Tensor& out, Tensor& argmax) override;
  void max_pool2d_backward(const Tensor& dy, const Tensor& argmax, const backend::Pool2DParams& p, Tensor& dx) override;
  void avg_pool2d(const Tensor& x, const backend::Pool2DParams& p, Tensor& out) override;
  void avg_pool2d_backward(const Tensor& dy, const backend::Pool2DParams& p, Tensor& dx) override;
  void dropout(const Tensor& x, double rate, uint64_t seed, Tensor& out, Tensor& mask) override;
  void copy_from(const Tensor& src, Tensor& dst) override;
  void bias_add(const Tensor& x, const Tensor& bias, bool relu, Tensor& out) override;
  void bias_add_backward(const Tensor& dy, const Tensor& y, bool relu, Tensor& dx, Tensor& db) override;
  void conv2d_bias(const Tensor& x, const Tensor& w, const Tensor& bias, bool relu, const backend::Conv2DParams& p,
                   Tensor& out) override;
  bool batch_norm_training(const Tensor& x, const Tensor* gamma, const Tensor* beta, double eps, Tensor& y, Tensor& mean,
                           Tensor& var) override;
  bool batch_norm_inference(const Tensor& x, const Tensor& mean, const Tensor& var, const Tensor* gamma,
                            const Tensor* beta, double eps, Tensor& y) override;
  bool batch_norm_training_backward(const Tensor& dy, const Tensor& x, const Tensor& mean, const Tensor& var,
                                    const Tensor* gamma, double eps, Tensor& dx, Tensor* dgamma, Tensor* dbeta) override;
  bool conv2d_bias_relu_max_pool(const Tensor& x, const Tensor& w, const Tensor& bias, const backend::Conv2DParams& cp,
                                 const backend::Pool2DParams& pp, Tensor& out, Tensor& argmax) override;
  bool has_conv2d_bias_relu_max_pool(const backend::Conv2DParams& cp, const backend::Pool2DParams& pp, DType dtype,
                                     bool backward) const override;
  bool conv2d_bias_relu_max_pool_backward_filter(const Tensor& x, const Tensor& dpool, const Tensor* scale,
                                                 const Tensor& argmax, const backend::Conv2DParams& cp,
                                                 const backend::Pool2DParams& pp, Tensor& dw, Tensor& db) override;
  void conv2d_bias_backward_filter(const Tensor& x, const Tensor& dy, const Tensor& y, bool relu,
                                   const backend::Conv2DParams& p, Tensor& dw, Tensor& db) override;
  bool adam_update(Tensor& w, Tensor& m, Tensor& v, Tensor* v_hat, const Tensor& g, HostScalar alpha, double one_b1,
                   double one_b2, double eps) override;
  bool sgd_update(Tensor& w, Tensor* m, const Tensor& g, HostScalar lr, double momentum, bool nesterov) override;
  bool rmsprop_update(Tensor& w, Tensor& v, Tensor* mom, Tensor* avg, const Tensor& g, HostScalar lr, double rho,
                      double momentum, double eps) override;
  bool group_norm(const Tensor& x, const Tensor* gamma, const Tensor* beta, const backend::GroupNormDims& d, double eps,
                  Tensor& y, Tensor& mean, Tensor& rstd) override;
  bool group_norm_backward(const Tensor& dy, const Tensor& x, const Tensor& mean, const Tensor& rstd,
                           const Tensor* gamma, const backend::GroupNormDims& d, Tensor& dx, Tensor* dgamma,
                           Tensor* dbeta) override;
  bool has_fused(Fused kind, double) const override {
    return kind == Fused::batch_norm || kind == Fused::batch_norm_inference || kind == Fused::adam ||
           kind == Fused::sgd || kind == Fused::rmsprop || kind == Fused::group_norm ||
           kind == Fused::attention || (kind == Fused::int8_matmul && has_int8_matmul_dequantize());
  }
  bool int8_matmul_dequantize(const Tensor& a, const Tensor& b, const Tensor& row_scale, const Tensor& col_scale,
                              const Tensor* bias, bool relu, Tensor& out) override;
  bool attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* mask,
                 const backend::AttentionDims& dims, Tensor& out) override;
  bool has_recurrence(const backend::RecurrenceParams& p, DType dtype) const override;
  void recurrence_forward(const backend::RecurrenceParams& p, const std::vector<Tensor>& in,
                          std::vector<Tensor>& out) override;
  void recurrence_backward(const backend::RecurrenceParams& p, const std::vector<Tensor>& in,
                           std::vector<Tensor>& out) override;
  bool can_fuse(DType dtype, int unary, int binary) const override;
  bool fused_elementwise(const backend::ElementwiseProgram& program) override;
};

/// The CPU kernels reach memory through these rather than Tensor::data(),
/// which refuses tensors of other devices: the same kernels also serve the
/// emulated CUDA device (backend/emulated_cuda.h), whose memory is host memory.
template <class T>
T* host_ptr(Tensor& t) {
  return static_cast<T*>(t.raw_data());
}
template <class T>
const T* host_ptr(const Tensor& t) {
  return static_cast<const T*>(t.raw_data());
}

/// C = op(A)·op(B) for row-major float/double through BLAS.
/// int8 × int8 → int32 (C = op(A) · op(B), row-major, no accumulation into C).
void int8_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const int8_t* a, const int8_t* b, int32_t* c);
/// Where int8_gemm_vnni writes C: int32 products, or, with `dequantized` set, the float32
/// products / (col_scale[j] · row_scale[i]) (row_scale has m values, col_scale n), then + bias[j]
/// where bias is set, then max(., 0) when relu (a NaN passes, as in bias_add).
struct Int8GemmOutput {
  int32_t* products = nullptr;
  float* dequantized = nullptr;
  const float* row_scale = nullptr;
  const float* col_scale = nullptr;
  const float* bias = nullptr;
  bool relu = false;
};
/// The AVX-512 VNNI int8 GEMM (int8_gemm_vnni.cpp), exact for every int8 input; defined only
/// where the build targets AVX512-VNNI and AVX512-BW.
void int8_gemm_vnni(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const int8_t* a, const int8_t* b,
                    const Int8GemmOutput& out);
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c, float beta);
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const double* a, const double* b, double* c, double beta);
/// The same on the calling thread alone, for kernels that split their own work over the pool.
void gemm_serial(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c,
                 float beta);
void gemm_serial(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const double* a, const double* b, double* c,
                 double beta);
/// The same with explicit leading dimensions (row-major: lda, ldb, ldc are the row strides of a, b, c as
/// stored), split over the pool, or (`_serial_`) on the calling thread alone.
void gemm_strided(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
                  int64_t ldb, float* c, int64_t ldc, float beta);
void gemm_strided(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const double* a, int64_t lda, const double* b,
                  int64_t ldb, double* c, int64_t ldc, double beta);
void gemm_serial_strided(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
                         int64_t ldb, float* c, int64_t ldc, float beta);
void gemm_serial_strided(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const double* a, int64_t lda,
                         const double* b, int64_t ldb, double* c, int64_t ldc, double beta);
/// x += bias along the last axis, then max(., 0) when relu; in place.
void bias_add_inplace(Tensor& x, const Tensor& bias, bool relu);
/// exp, expm1, tanh, sigmoid and erf of n float32 values on whole SIMD vectors
/// (vector_math.h); false, with nothing written, for any other op. The
/// single-op and the fused element-wise kernels both use it, so a traced
/// function gives the same bits as eager execution.
bool unary_vectorized(backend::UnaryOp op, const float* x, float* o, int64_t n);

}  // namespace kiln::cpu

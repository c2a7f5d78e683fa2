// The CUDA backend's neural-network primitives: softmax, fused sparse softmax
// cross-entropy, pooling and dropout (kernels in reduce.cu, nn.cu, index.cu).
//
// Pooling uses Kiln's own kernels rather than cuDNN's: the op interface carries
// an argmax tensor for max-pool's gradient, and TF's 'same' padding may be
// asymmetric (one more row at the bottom), which cuDNN's symmetric padding
// cannot express. Pooling is memory-bound, so the kernels lose nothing.
#include "backend/cuda/cuda_backend.h"
#include "backend/cuda/kernels.h"
#include "backend/cuda/philox.h"

namespace kiln::cuda {

namespace {
void expect_float(const char* op, const Tensor& t) {
  if (!is_floating(t.dtype()))
    throw TypeError(std::string(op) + ": expected a float32 or float64 tensor, but received " + dtype_name(t.dtype()));
}
k::PoolDims pool_dims(const backend::Pool2DParams& p) {
  return k::PoolDims{p.n, p.h, p.w, p.c, p.oh, p.ow, p.pool_h, p.pool_w, p.stride_h, p.stride_w, p.pad_top, p.pad_left};
}
}  // namespace

void CudaBackend::softmax(const Tensor& x, int axis, bool log, Tensor& out) {
  expect_here("softmax", {&x, &out});
  expect_float("softmax", x);
  const AxisSplit s = split_at(x.shape(), axis);
  DeviceGuard g(index_);
  k::softmax(to_dt(x.dtype()), x.raw_data(), out.raw_data(), s.outer, s.n, s.inner, log, ctx_.stream());
  KILN_CUDA_LAUNCHED("softmax");
}

void CudaBackend::abs_max_quantize(const Tensor& x, double value_min, double value_max, double epsilon, Tensor& q,
                                   Tensor& scale) {
  expect_here("abs_max_quantize", {&x, &q, &scale});
  const int64_t n = x.rank() == 0 ? 1 : x.shape()[-1];
  DeviceGuard g(index_);
  k::abs_max_quantize(static_cast<const float*>(x.raw_data()), static_cast<int8_t*>(q.raw_data()),
                      static_cast<float*>(scale.raw_data()), n == 0 ? 0 : x.size() / n, n, static_cast<float>(value_min),
                      static_cast<float>(value_max), static_cast<float>(epsilon), ctx_.stream());
  KILN_CUDA_LAUNCHED("abs_max_quantize");
}

void CudaBackend::sparse_xent(const Tensor& labels, const Tensor& logits, Tensor& loss, Tensor& probs) {
  const char* op = "sparse_softmax_cross_entropy_with_logits";
  expect_here(op, {&labels, &logits, &loss, &probs});
  expect_float(op, logits);
  if (!is_integer(labels.dtype()))
    throw TypeError(std::string(op) + ": labels must be integers, but received " + dtype_name(labels.dtype()));
  // Labels are not range-checked here: that would mean a device-to-host copy
  // and a wait every step. An out-of-range label gives a NaN loss (and NaN
  // gradient row), as TF on GPU; the CPU backend raises ValueError instead.
  const int64_t C = logits.shape()[-1];
  const int64_t N = C > 0 ? logits.size() / C : 0;
  DeviceGuard g(index_);
  k::sparse_xent(to_dt(logits.dtype()), to_dt(labels.dtype()), labels.raw_data(), logits.raw_data(), loss.raw_data(),
                 probs.raw_data(), N, C, ctx_.stream());
  KILN_CUDA_LAUNCHED("sparse_xent");
}

void CudaBackend::max_pool2d(const Tensor& x, const backend::Pool2DParams& p, Tensor& out, Tensor& argmax) {
  expect_here("max_pool2d", {&x, &out, &argmax});
  expect_float("max_pool2d", x);
  if (x.size() > INT32_MAX)
    throw ValueError("max_pool2d: the int32 argmax cannot index an input of " + std::to_string(x.size()) + " elements");
  DeviceGuard g(index_);
  // An empty argmax: no gradient will read it, so it is not written.
  int32_t* am = argmax.size() > 0 ? static_cast<int32_t*>(argmax.raw_data()) : nullptr;
  k::max_pool(to_dt(x.dtype()), x.raw_data(), out.raw_data(), am, pool_dims(p),
              ctx_.stream());
  KILN_CUDA_LAUNCHED("max_pool2d");
}

void CudaBackend::max_pool2d_backward(const Tensor& dy, const Tensor& argmax, const backend::Pool2DParams& p,
                                      Tensor& dx) {
  expect_here("max_pool2d_backward", {&dy, &argmax, &dx});
  expect_float("max_pool2d_backward", dy);
  DeviceGuard g(index_);
  k::max_pool_backward(to_dt(dy.dtype()), dy.raw_data(), static_cast<const int32_t*>(argmax.raw_data()), dx.raw_data(),
                       pool_dims(p), ctx_.stream());
  KILN_CUDA_LAUNCHED("max_pool2d_backward");
}

void CudaBackend::avg_pool2d(const Tensor& x, const backend::Pool2DParams& p, Tensor& out) {
  expect_here("avg_pool2d", {&x, &out});
  expect_float("avg_pool2d", x);
  DeviceGuard g(index_);
  k::avg_pool(to_dt(x.dtype()), x.raw_data(), out.raw_data(), pool_dims(p), ctx_.stream());
  KILN_CUDA_LAUNCHED("avg_pool2d");
}

void CudaBackend::avg_pool2d_backward(const Tensor& dy, const backend::Pool2DParams& p, Tensor& dx) {
  expect_here("avg_pool2d_backward", {&dy, &dx});
  expect_float("avg_pool2d_backward", dy);
  DeviceGuard g(index_);
  k::avg_pool_backward(to_dt(dy.dtype()), dy.raw_data(), dx.raw_data(), pool_dims(p), ctx_.stream());
  KILN_CUDA_LAUNCHED("avg_pool2d_backward");
}

void CudaBackend::dropout(const Tensor& x, double rate, uint64_t seed, Tensor& out, Tensor& mask) {
  expect_here("dropout", {&x, &out, &mask});
  expect_float("dropout", x);
  // Philox bits, not the CPU's splitmix64 stream: the same seed gives the same
  // mask on every GPU run, but not the CPU's mask.
  DeviceGuard g(index_);
  k::dropout(to_dt(x.dtype()), x.raw_data(), out.raw_data(), mask.raw_data(), x.size(), dropout_threshold(rate),
             1.0 / (1.0 - rate), seed, ctx_.stream());
  KILN_CUDA_LAUNCHED("dropout");
}

}  // namespace kiln::cuda

// The CUDA backend's fused kernels: element-wise chains from the graph
// compiler (one launch per chain), bias + relu, convolution + bias + relu, and
// the Adam, SGD and RMSprop updates (one launch per variable instead of six to
// ten element-wise ops). Kernels in fused.cu.
#include "backend/cuda/cuda_backend.h"
#include "backend/cuda/kernels.h"

namespace kiln::cuda {

using backend::BinaryOp;
using backend::UnaryOp;

bool CudaBackend::has_fused(Fused kind, double eps) const {
  // cuDNN's batch norm refuses an epsilon below CUDNN_BN_MIN_EPSILON; Kiln's
  // own kernels (inference batch norm, the optimizers) take any.
  if (kind == Fused::batch_norm) return eps >= CUDNN_BN_MIN_EPSILON;
  return true;
}

bool CudaBackend::can_fuse(DType dtype, int unary, int binary) const {
  const bool fl = dtype == DType::float32 || dtype == DType::float64;
  const bool in = dtype == DType::int32 || dtype == DType::int64;
  if (!fl && !in) return false;
  if (unary >= 0) {
    switch (static_cast<UnaryOp>(unary)) {
      case UnaryOp::isnan: case UnaryOp::isfinite: case UnaryOp::logical_not: return false;
      case UnaryOp::neg: case UnaryOp::abs: case UnaryOp::sign: case UnaryOp::square: case UnaryOp::relu: return true;
      default: return fl;
    }
  }
  switch (static_cast<BinaryOp>(binary)) {
    case BinaryOp::add: case BinaryOp::sub: case BinaryOp::mul: case BinaryOp::div: case BinaryOp::maximum:
    case BinaryOp::minimum: case BinaryOp::relu_grad: case BinaryOp::floor_mod: return true;
    case BinaryOp::pow: return fl;
    default: return false;
  }
}

bool CudaBackend::fused_elementwise(const backend::ElementwiseProgram& p) {
  if (p.buffers.size() > static_cast<std::size_t>(k::kMaxFusedBuffers) ||
      p.steps.size() > static_cast<std::size_t>(k::kMaxFusedSteps))
    return false;
  for (const auto& st : p.steps)
    if (!can_fuse(p.dtype, st.unary, st.binary)) return false;
  k::FusedProgram kp;
  kp.n = p.n;
  kp.n_steps = static_cast<int>(p.steps.size());
  for (std::size_t i = 0; i < p.buffers.size(); ++i) {
    const Tensor& b = p.buffers[i];
    expect_here("fused_elementwise", {&b});
    if (b.dtype() != p.dtype || (b.size() != p.n && b.size() != 1)) return false;
    kp.buf[i] = const_cast<void*>(b.raw_data());
    kp.scalar[i] = b.size() == 1 && p.n != 1;
  }
  for (std::size_t s = 0; s < p.steps.size(); ++s) {
    const auto& st = p.steps[s];
    kp.steps[s] = k::FusedStep{static_cast<int8_t>(st.unary), static_cast<int8_t>(st.binary),
                               static_cast<int8_t>(st.a), static_cast<int8_t>(st.b), static_cast<int8_t>(st.out)};
  }
  DeviceGuard g(index_);
  k::fused_elementwise(to_dt(p.dtype), kp, ctx_.stream());
  KILN_CUDA_LAUNCHED("fused_elementwise");
  return true;
}

void CudaBackend::bias_add(const Tensor& x, const Tensor& bias, bool relu, Tensor& out) {
  expect_here("bias_add", {&x, &bias, &out});
  if (!is_floating(x.dtype()) || bias.dtype() != x.dtype() || bias.size() == 0 || x.size() % bias.size() != 0)
    return Backend::bias_add(x, bias, relu, out);
  DeviceGuard g(index_);
  k::bias_act(to_dt(x.dtype()), x.raw_data(), bias.raw_data(), out.raw_data(), x.size(), bias.size(), relu,
              ctx_.stream());
  KILN_CUDA_LAUNCHED("bias_add");
}

void CudaBackend::conv2d_bias(const Tensor& x, const Tensor& w, const Tensor& bias, bool relu,
                              const backend::Conv2DParams& p, Tensor& out) {
  // The convolution writes out; bias and relu follow in one pass over it, in place.
  conv2d(x, w, p, out);
  bias_add(out, bias, relu, out);
}

bool CudaBackend::adam_update(Tensor& w, Tensor& m, Tensor& v, Tensor* v_hat, const Tensor& g, HostScalar alpha,
                              double one_b1, double one_b2, double eps) {
  expect_here("adam_update", {&w, &m, &v, &g});
  if (v_hat) expect_here("adam_update", {v_hat});
  DeviceGuard dg(index_);
  k::adam(to_dt(w.dtype()), w.raw_data(), m.raw_data(), v.raw_data(), v_hat ? v_hat->raw_data() : nullptr,
          g.raw_data(), w.size(), alpha, one_b1, one_b2, eps, ctx_.stream());
  KILN_CUDA_LAUNCHED("adam_update");
  return true;
}

bool CudaBackend::sgd_update(Tensor& w, Tensor* m, const Tensor& g, HostScalar lr, double momentum, bool nesterov) {
  expect_here("sgd_update", {&w, &g});
  if (m) expect_here("sgd_update", {m});
  DeviceGuard dg(index_);
  k::sgd(to_dt(w.dtype()), w.raw_data(), m ? m->raw_data() : nullptr, g.raw_data(), w.size(), lr, momentum, nesterov,
         ctx_.stream());
  KILN_CUDA_LAUNCHED("sgd_update");
  return true;
}

bool CudaBackend::rmsprop_update(Tensor& w, Tensor& v, Tensor* mom, Tensor* avg, const Tensor& g, HostScalar lr,
                                 double rho, double momentum, double eps) {
  expect_here("rmsprop_update", {&w, &v, &g});
  if (mom) expect_here("rmsprop_update", {mom});
  if (avg) expect_here("rmsprop_update", {avg});
  DeviceGuard dg(index_);
  k::rmsprop(to_dt(w.dtype()), w.raw_data(), v.raw_data(), mom ? mom->raw_data() : nullptr,
             avg ? avg->raw_data() : nullptr, g.raw_data(), w.size(), lr, rho, momentum, eps, ctx_.stream());
  KILN_CUDA_LAUNCHED("rmsprop_update");
  return true;
}

}  // namespace kiln::cuda

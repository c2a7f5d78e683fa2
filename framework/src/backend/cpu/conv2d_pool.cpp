// Convolution + bias + relu + 2×2 max pool in one pass, for the compiled graph
// (graph/fuse_conv_pool.cpp): each pool window's four convolution pixels are
// computed and pooled in registers (conv_pool_rows_f32), so the convolution's
// output, four times the pooled size, is never written to memory nor read back.
#include <algorithm>

#include "backend/cpu/conv2d_direct.h"
#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/denormals.h"
#include "backend/cpu/parallel.h"

namespace kiln::cpu {

bool CpuBackend::has_conv2d_bias_relu_max_pool(const backend::Conv2DParams& cp, const backend::Pool2DParams& pp,
                                               DType dtype, bool backward) const {
  const bool shapes = is_pool_2x2(pp) && pp.n == cp.n && pp.h == cp.oh && pp.w == cp.ow && pp.c == cp.c_out;
  return shapes && (backward ? direct_filter_9_applies(cp, dtype) : direct_rows_apply(cp, dtype));
}

bool CpuBackend::conv2d_bias_relu_max_pool(const Tensor& x, const Tensor& w, const Tensor& bias,
                                           const backend::Conv2DParams& cp, const backend::Pool2DParams& pp,
                                           Tensor& out, Tensor& argmax) {
  if (!has_conv2d_bias_relu_max_pool(cp, pp, x.dtype(), false)) return false;
  FlushDenormals flush;
  const float* xp = static_cast<const float*>(x.raw_data());
  const float* wp = static_cast<const float*>(w.raw_data());
  const float* bp = static_cast<const float*>(bias.raw_data());
  float* op = static_cast<float*>(out.raw_data());
  int32_t* am = argmax.defined() ? static_cast<int32_t*>(argmax.raw_data()) : nullptr;
  parallel_for(pp.n * pp.oh, [&](int64_t r0, int64_t r1) { conv_pool_rows_f32(xp, wp, bp, cp, pp, op, am, r0, r1); }, 2);
  return true;
}

bool CpuBackend::conv2d_bias_relu_max_pool_backward_filter(const Tensor& x, const Tensor& dpool, const Tensor* scale,
                                                           const Tensor& argmax, const backend::Conv2DParams& cp,
                                                           const backend::Pool2DParams& pp, Tensor& dw, Tensor& db) {
  if (!has_conv2d_bias_relu_max_pool(cp, pp, x.dtype(), true) || dpool.dtype() != DType::float32) return false;
  FlushDenormals flush;
  const int64_t K = 9, co = cp.c_out, image = cp.oh * cp.ow * co;
  const float* xp = static_cast<const float*>(x.raw_data());
  const float* g = static_cast<const float*>(dpool.raw_data());
  const float* s = scale ? static_cast<const float*>(scale->raw_data()) : nullptr;
  const int32_t* am = static_cast<const int32_t*>(argmax.raw_data());
  float* sums = static_cast<float*>(thread_scratch(Scratch::kernel, sizeof(float) * (K * co + co)));  // dW then db
  parallel_sum<float>(cp.n, num_threads(), K * co + co, sums, [&](int64_t n0, int64_t n1, float* buf) {
    // Image by image, the pool's gradient is spread over its windows into a buffer that stays in L2.
    thread_local std::vector<float> dy;
    dy.resize(static_cast<std::size_t>(image));
    auto dy_of = [&](int64_t n) -> const float* {
      max_pool_2x2_backward_image_f32(g, s, am, pp, n, dy.data());
      return dy.data();
    };
    conv_bias_backward_filter_9(xp, dy_of, cp, buf, buf + K * co, n0, n1);
  });
  std::copy(sums, sums + K * co, static_cast<float*>(dw.raw_data()));
  std::copy(sums + K * co, sums + K * co + co, static_cast<float*>(db.raw_data()));
  return true;
}

}  // namespace kiln::cpu

// CPU 2-D convolution. In general im2col + sgemm (conv2d_gemm.cpp): the patch
// matrix (N·OH·OW, KH·KW·C_in) times the HWIO kernel viewed as (KH·KW·C_in, C_out)
// gives the NHWC output directly, with no transposes. Small patches take direct
// kernels instead (see use_direct).
#include <algorithm>
#include <cstring>
#include <functional>
#include <vector>

#include "backend/cpu/conv2d_direct.h"
#include "backend/cpu/conv2d_gemm.h"
#include "backend/cpu/conv2d_onednn.h"
#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/denormals.h"
#include "backend/cpu/parallel.h"
#include "backend/cpu/reference.h"
#include "backend/cpu/simd.h"
#include "core/dispatch.h"

namespace kiln::cpu {

namespace {
using namespace simd;

// Forward, general: out[pixel, :] = patch · W, 16 output channels per register pair.
template <class T>
void conv_direct(const T* __restrict x, const T* __restrict w, const backend::Conv2DParams& p, T* __restrict out,
                 int64_t n0, int64_t n1) {
  const int64_t co = p.c_out, K = p.kh * p.kw * p.c_in;
  T patch[kDirectMaxK];
  const PatchGatherer<T> gather(p);
  for (int64_t n = n0; n < n1; ++n)
    for (int64_t oy = 0; oy < p.oh; ++oy)
      for (int64_t ox = 0; ox < p.ow; ++ox) {
        gather(x, n, oy, ox, patch);
        T* o = out + ((n * p.oh + oy) * p.ow + ox) * co;
        int64_t c0 = 0;
        if constexpr (std::is_same_v<T, float>) {
          for (; c0 + 16 <= co; c0 += 16) {
            v8f a0 = {}, a1 = {};
            for (int64_t k = 0; k < K; ++k) {
              const float* wr = w + k * co + c0;
              a0 += patch[k] * load8(wr);
              a1 += patch[k] * load8(wr + 8);
            }
            store8(o + c0, a0);
            store8(o + c0 + 8, a1);
          }
          for (; c0 + 8 <= co; c0 += 8) {
            v8f acc = {};
            for (int64_t k = 0; k < K; ++k) acc += patch[k] * load8(w + k * co + c0);
            store8(o + c0, acc);
          }
        }
        for (; c0 < co; ++c0) {
          T acc = 0;
          for (int64_t k = 0; k < K; ++k) acc += patch[k] * w[k * co + c0];
          o[c0] = acc;
        }
      }
}

// Any dtype, K and c_out: per pixel, dW[k, c] += patch[k] · dY[pixel, c].
template <class T>
void conv_direct_backward_filter(const T* __restrict x, const T* __restrict dy, const backend::Conv2DParams& p,
                                 T* __restrict dw, int64_t n0, int64_t n1) {
  const int64_t co = p.c_out, K = p.kh * p.kw * p.c_in;
  if constexpr (std::is_same_v<T, float>) {
    if (K == 9 && co % 8 == 0) return conv_filter_grad_9(x, dy, nullptr, p, dw, nullptr, n0, n1);
  }
  std::fill(dw, dw + K * co, T(0));
  const PatchGatherer<T> gather(p);
  T patch[kDirectMaxK];
  for (int64_t n = n0; n < n1; ++n)
    for (int64_t oy = 0; oy < p.oh; ++oy)
      for (int64_t ox = 0; ox < p.ow; ++ox) {
        gather(x, n, oy, ox, patch);
        const T* __restrict g = dy + ((n * p.oh + oy) * p.ow + ox) * co;
        for (int64_t k = 0; k < K; ++k)
          for (int64_t c = 0; c < co; ++c) dw[k * co + c] += patch[k] * g[c];
      }
}

// The fused forward: conv, then bias (if given) and relu, in the direct
// kernel's epilogue where it applies, else as one in-place pass afterwards.
template <class T>
void conv2d_fused(const Tensor& x, const Tensor& w, const Tensor* bias, bool relu, const backend::Conv2DParams& p,
                  Tensor& out) {
  const int64_t rows = p.n * p.oh * p.ow, K = p.kh * p.kw * p.c_in;
  const T* xp = static_cast<const T*>(x.raw_data());
  const T* wp = static_cast<const T*>(w.raw_data());
  T* op = static_cast<T*>(out.raw_data());
  if (reference_kernels()) {
    reference::conv2d(xp, wp, p, op);
  } else if (std::is_same_v<T, float> && onednn::takes(p, onednn::Pass::forward)) {
    onednn::forward(host_ptr<float>(x), host_ptr<float>(w), bias ? host_ptr<float>(*bias) : nullptr, relu, p,
                    host_ptr<float>(out));
    return;
  } else if (use_direct(p) && !is_pointwise(p)) {
    if constexpr (std::is_same_v<T, float>) {
      if (direct_rows_apply(p, DType::float32)) {
        const float* bp = bias ? static_cast<const float*>(bias->raw_data()) : nullptr;
        parallel_for(
            p.n * p.oh,
            [&](int64_t r0, int64_t r1) {
              conv_direct_rows_f32(xp, wp, bp, relu, p, op + r0 * p.ow * p.c_out, r0, r1);
            },
            4);
        return;
      }
    }
    parallel_for(p.n, [&](int64_t n0, int64_t n1) { conv_direct(xp, wp, p, op, n0, n1); });
  } else {
    conv_gemm_forward<T>(xp, wp, bias ? static_cast<const T*>(bias->raw_data()) : nullptr, relu, p, op);
    return;
  }
  if (bias) bias_add_inplace(out, *bias, relu);
}
}  // namespace

void CpuBackend::conv2d(const Tensor& x, const Tensor& w, const backend::Conv2DParams& p, Tensor& out) {
  FlushDenormals flush;
  dispatch_float(x.dtype(), "conv2d", [&](auto tag) { conv2d_fused<decltype(tag)>(x, w, nullptr, false, p, out); });
}

void CpuBackend::conv2d_bias(const Tensor& x, const Tensor& w, const Tensor& bias, bool relu,
                             const backend::Conv2DParams& p, Tensor& out) {
  FlushDenormals flush;
  dispatch_float(x.dtype(), "conv2d", [&](auto tag) { conv2d_fused<decltype(tag)>(x, w, &bias, relu, p, out); });
}

void CpuBackend::conv2d_backward_input(const Tensor& dy, const Tensor& w, const backend::Conv2DParams& p, Tensor& dx) {
  FlushDenormals flush;
  dispatch_float(dy.dtype(), "conv2d_backward_input", [&](auto tag) {
    using T = decltype(tag);
    if (std::is_same_v<T, float> && !reference_kernels() && onednn::takes(p, onednn::Pass::backward_input))
      return onednn::backward_input(host_ptr<float>(dy), host_ptr<float>(w), p, host_ptr<float>(dx));
    conv_gemm_backward_input<T>(static_cast<const T*>(dy.raw_data()), static_cast<const T*>(w.raw_data()), p,
                                static_cast<T*>(dx.raw_data()));
  });
}

void CpuBackend::conv2d_backward_filter(const Tensor& x, const Tensor& dy, const backend::Conv2DParams& p, Tensor& dw) {
  FlushDenormals flush;
  dispatch_float(x.dtype(), "conv2d_backward_filter", [&](auto tag) {
    using T = decltype(tag);
    const int64_t rows = p.n * p.oh * p.ow, K = p.kh * p.kw * p.c_in;
    const T* xp = static_cast<const T*>(x.raw_data());
    if (reference_kernels()) {
      reference::conv2d_backward_filter(xp, static_cast<const T*>(dy.raw_data()), p, static_cast<T*>(dw.raw_data()));
      return;
    }
    if (std::is_same_v<T, float> && onednn::takes(p, onednn::Pass::backward_filter))
      return onednn::backward_filter(host_ptr<float>(x), host_ptr<float>(dy), p, host_ptr<float>(dw));
    if (use_direct(p) && !is_pointwise(p)) {
      // Each thread sums its share of the batch into its own buffer; then add them.
      const T* dyp = static_cast<const T*>(dy.raw_data());
      T* dwp = static_cast<T*>(dw.raw_data());
      const int64_t size = K * p.c_out;
      parallel_sum<T>(p.n, num_threads(), size, dwp,
                      [&](int64_t n0, int64_t n1, T* buf) { conv_direct_backward_filter(xp, dyp, p, buf, n0, n1); });
      return;
    }
    conv_gemm_backward_filter<T>(xp, static_cast<const T*>(dy.raw_data()), p, static_cast<T*>(dw.raw_data()));
  });
}

void CpuBackend::conv2d_bias_backward_filter(const Tensor& x, const Tensor& dy, const Tensor& y, bool relu,
                                             const backend::Conv2DParams& p, Tensor& dw, Tensor& db) {
  FlushDenormals flush;
  const int64_t K = p.kh * p.kw * p.c_in, co = p.c_out;
  if (reference_kernels() || x.dtype() != DType::float32 || !use_direct(p) || is_pointwise(p) || K != 9 || co % 8 != 0)
    return Backend::conv2d_bias_backward_filter(x, dy, y, relu, p, dw, db);
  // Each thread sums its images into its own dW and db (parallel_sum); then they are added.
  const float* xp = host_ptr<float>(x);
  const float* dyp = host_ptr<float>(dy);
  const float* yp = host_ptr<float>(y);
  float* sums = static_cast<float*>(thread_scratch(Scratch::kernel, sizeof(float) * (K * co + co)));  // dW then db
  parallel_sum<float>(p.n, num_threads(), K * co + co, sums, [&](int64_t n0, int64_t n1, float* buf) {
    conv_filter_grad_9(xp, dyp, relu ? yp : nullptr, p, buf, buf + K * co, n0, n1);
  });
  std::copy(sums, sums + K * co, host_ptr<float>(dw));
  std::copy(sums + K * co, sums + K * co + co, host_ptr<float>(db));
}

}  // namespace kiln::cpu

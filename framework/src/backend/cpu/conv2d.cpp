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
bool is_pointwise(const backend::Conv2DParams& p) {
  return p.kh == 1 && p.kw == 1 && p.stride_h == 1 && p.stride_w == 1 && p.pad_top == 0 && p.pad_left == 0;
}
// Direct convolution for a small patch (K = kh·kw·c_in, e.g. 9 for the first
// conv of an MNIST CNN). GEMM packing dominates at such K, so instead each
// output pixel accumulates K rows of the kernel, vectorised over c_out.
constexpr int64_t kDirectMaxK = 32;
bool use_direct(const backend::Conv2DParams& p) { return p.kh * p.kw * p.c_in <= kDirectMaxK; }

// Gathers the K = kh·kw·c_in input values under one output pixel (zeros in the
// padding). Windows fully inside the image (all of them for "valid") take the
// branch-free path through precomputed offsets.
template <class T>
struct PatchGatherer {
  const backend::Conv2DParams& p;
  int64_t off[kDirectMaxK];
  explicit PatchGatherer(const backend::Conv2DParams& q) : p(q) {
    int64_t k = 0;
    for (int64_t ky = 0; ky < p.kh; ++ky)
      for (int64_t kx = 0; kx < p.kw; ++kx)
        for (int64_t ci = 0; ci < p.c_in; ++ci) off[k++] = (ky * p.dil_h * p.w + kx * p.dil_w) * p.c_in + ci;
  }
  inline void operator()(const T* __restrict x, int64_t n, int64_t oy, int64_t ox, T* __restrict patch) const {
    const int64_t iy0 = oy * p.stride_h - p.pad_top, ix0 = ox * p.stride_w - p.pad_left;
    const int64_t K = p.kh * p.kw * p.c_in;
    if (iy0 >= 0 && ix0 >= 0 && iy0 + (p.kh - 1) * p.dil_h < p.h && ix0 + (p.kw - 1) * p.dil_w < p.w) {
      const T* base = x + ((n * p.h + iy0) * p.w + ix0) * p.c_in;
      for (int64_t k = 0; k < K; ++k) patch[k] = base[off[k]];
      return;
    }
    int64_t k = 0;
    for (int64_t ky = 0; ky < p.kh; ++ky) {
      const int64_t iy = iy0 + ky * p.dil_h;
      for (int64_t kx = 0; kx < p.kw; ++kx) {
        const int64_t ix = ix0 + kx * p.dil_w;
        const bool inside = iy >= 0 && iy < p.h && ix >= 0 && ix < p.w;
        const T* xv = x + ((n * p.h + iy) * p.w + ix) * p.c_in;
        for (int64_t ci = 0; ci < p.c_in; ++ci) patch[k++] = inside ? xv[ci] : T(0);
      }
    }
  }
};

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

// Forward, float with c_out a multiple of 16: one output row at a time. The
// row's patches are gathered once into a small buffer; then 4 pixels × 16
// channels accumulate in 8 registers, so each kernel row loaded from L1 feeds
// 8 FMAs. The bias and relu are applied before the single store. Per pixel and
// channel the sum runs over k in the same order as conv_direct, so results are
// identical to it (and the bias is added after the sum, as a separate bias_add would).
template <int KT>
void conv_direct_rows(const float* __restrict x, const float* __restrict w, const float* __restrict bias, bool relu,
                      const backend::Conv2DParams& p, float* __restrict out, int64_t r0, int64_t r1) {
  const int64_t co = p.c_out, K = KT > 0 ? KT : p.kh * p.kw * p.c_in, OW = p.ow;
  thread_local std::vector<float> patches;
  patches.resize(static_cast<std::size_t>(OW * K));
  float* __restrict pt = patches.data();
  const PatchGatherer<float> gather(p);
  auto finish = [&](v8f a, int64_t c) {
    if (bias) a += load8(bias + c);
    if (relu) a = a <= v8f{} ? v8f{} : a;  // NaN passes through, as in relu
    return a;
  };
  for (int64_t row = r0; row < r1; ++row) {  // row = n·oh + oy
    const int64_t n = row / p.oh, oy = row % p.oh;
    for (int64_t ox = 0; ox < OW; ++ox) gather(x, n, oy, ox, pt + ox * K);
    float* orow = out + (row - r0) * OW * co;
    int64_t ox = 0;
    for (; ox + 4 <= OW; ox += 4) {
      const float* p0 = pt + ox * K;
      for (int64_t c0 = 0; c0 < co; c0 += 16) {
        v8f a[4][2] = {};
        for (int64_t k = 0; k < K; ++k) {
          const v8f w0 = load8(w + k * co + c0), w1 = load8(w + k * co + c0 + 8);
          for (int q = 0; q < 4; ++q) {
            const float b = p0[q * K + k];
            a[q][0] += b * w0;
            a[q][1] += b * w1;
          }
        }
        for (int q = 0; q < 4; ++q) {
          store8(orow + (ox + q) * co + c0, finish(a[q][0], c0));
          store8(orow + (ox + q) * co + c0 + 8, finish(a[q][1], c0 + 8));
        }
      }
    }
    for (; ox < OW; ++ox) {
      const float* p0 = pt + ox * K;
      for (int64_t c0 = 0; c0 < co; c0 += 16) {
        v8f a0 = {}, a1 = {};
        for (int64_t k = 0; k < K; ++k) {
          a0 += p0[k] * load8(w + k * co + c0);
          a1 += p0[k] * load8(w + k * co + c0 + 8);
        }
        store8(orow + ox * co + c0, finish(a0, c0));
        store8(orow + ox * co + c0 + 8, finish(a1, c0 + 8));
      }
    }
  }
}

}  // namespace

void conv_direct_rows_f32(const float* x, const float* w, const float* bias, bool relu, const backend::Conv2DParams& p,
                          float* out, int64_t r0, int64_t r1) {
  if (p.kh * p.kw * p.c_in == 9) conv_direct_rows<9>(x, w, bias, relu, p, out, r0, r1);
  else conv_direct_rows<0>(x, w, bias, relu, p, out, r0, r1);
}

bool direct_rows_apply(const backend::Conv2DParams& p, DType dtype) {
  return dtype == DType::float32 && !reference_kernels() && !onednn::takes(p, onednn::Pass::forward) &&
         use_direct(p) && !is_pointwise(p) && p.c_out % 16 == 0;
}

namespace {

/// Image by image through a batch's contiguous dY.
auto images_of(const float* dy, const backend::Conv2DParams& p) {
  return [dy, size = p.oh * p.ow * p.c_out](int64_t n) { return dy + n * size; };
}

// Filter gradient: dW[k, :] += patch[k] · dY[pixel, :] over this thread's
// images. Float, K = 9 (a 3×3 kernel on one channel): image by image, the
// image's patches are gathered once, then for each block of 8 output channels
// all K accumulators stay in registers while the image's pixels stream past;
// the image's dY (86 KB for 26×26×32) stays in L2 across the blocks.
// With Bias, the same pass also sums the bias gradient, and with Relu it masks
// dY by y > 0 on the fly (the fused conv2d_bias backward: no masked copy of dY).
// `dy_of(n)` gives image n's dY.
template <int K, bool Bias, bool Relu, class DyOf>
void conv_direct_backward_filter_f32(const float* __restrict x, DyOf dy_of, const float* __restrict y,
                                     const backend::Conv2DParams& p, float* __restrict dw, float* __restrict db,
                                     int64_t n0, int64_t n1) {
  const int64_t co = p.c_out, pixels = p.oh * p.ow;
  std::fill(dw, dw + K * co, 0.0f);
  if constexpr (Bias) std::fill(db, db + co, 0.0f);
  thread_local std::vector<float> patches;
  patches.resize(static_cast<std::size_t>(pixels * K));
  float* __restrict pt = patches.data();
  const PatchGatherer<float> gather(p);
  for (int64_t n = n0; n < n1; ++n) {
    for (int64_t oy = 0; oy < p.oh; ++oy)
      for (int64_t ox = 0; ox < p.ow; ++ox) gather(x, n, oy, ox, pt + (oy * p.ow + ox) * K);
    const float* dyn = dy_of(n);
    const float* yn = Relu ? y + n * pixels * co : nullptr;
    for (int64_t c0 = 0; c0 < co; c0 += 8) {
      v8f acc[K];
      for (int k = 0; k < K; ++k) acc[k] = v8f{};
      v8f bacc = {};
      for (int64_t i = 0; i < pixels; ++i) {
        v8f g = load8(dyn + i * co + c0);
        if constexpr (Relu) g = load8(yn + i * co + c0) > v8f{} ? g : v8f{};
        if constexpr (Bias) bacc += g;
        for (int k = 0; k < K; ++k) acc[k] += pt[i * K + k] * g;
      }
      for (int k = 0; k < K; ++k) store8(dw + k * co + c0, load8(dw + k * co + c0) + acc[k]);
      if constexpr (Bias) store8(db + c0, load8(db + c0) + bacc);
    }
  }
}

// Any dtype, K and c_out: per pixel, dW[k, c] += patch[k] · dY[pixel, c].
template <class T>
void conv_direct_backward_filter(const T* __restrict x, const T* __restrict dy, const backend::Conv2DParams& p,
                                 T* __restrict dw, int64_t n0, int64_t n1) {
  const int64_t co = p.c_out, K = p.kh * p.kw * p.c_in;
  if constexpr (std::is_same_v<T, float>) {
    if (K == 9 && co % 8 == 0)
      return conv_direct_backward_filter_f32<9, false, false>(x, images_of(dy, p), nullptr, p, dw, nullptr, n0, n1);
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

}  // namespace

namespace {
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
    if (relu) conv_direct_backward_filter_f32<9, true, true>(xp, images_of(dyp, p), yp, p, buf, buf + K * co, n0, n1);
    else conv_direct_backward_filter_f32<9, true, false>(xp, images_of(dyp, p), nullptr, p, buf, buf + K * co, n0, n1);
  });
  std::copy(sums, sums + K * co, host_ptr<float>(dw));
  std::copy(sums + K * co, sums + K * co + co, host_ptr<float>(db));
}

bool direct_filter_9_applies(const backend::Conv2DParams& p, DType dtype) {
  return dtype == DType::float32 && !reference_kernels() && use_direct(p) && !is_pointwise(p) &&
         p.kh * p.kw * p.c_in == 9 && p.c_out % 8 == 0;
}

void conv_bias_backward_filter_9(const float* x, const std::function<const float*(int64_t)>& dy_of,
                                 const backend::Conv2DParams& p, float* dw, float* db, int64_t n0, int64_t n1) {
  conv_direct_backward_filter_f32<9, true, false>(x, std::cref(dy_of), nullptr, p, dw, db, n0, n1);
}

}  // namespace kiln::cpu

#pragma once
// Private: the CPU's direct convolution row kernel, shared by conv2d and the
// convolution fused with the max pool that follows it.
#include <cstdint>
#include <functional>

#include "backend/backend.h"

namespace kiln::cpu {

inline bool is_pointwise(const backend::Conv2DParams& p) {
  return p.kh == 1 && p.kw == 1 && p.stride_h == 1 && p.stride_w == 1 && p.pad_top == 0 && p.pad_left == 0;
}
// Direct convolution for a small patch (K = kh·kw·c_in, e.g. 9 for the first
// conv of an MNIST CNN). GEMM packing dominates at such K, so instead each
// output pixel accumulates K rows of the kernel, vectorised over c_out.
constexpr int64_t kDirectMaxK = 32;
inline bool use_direct(const backend::Conv2DParams& p) { return p.kh * p.kw * p.c_in <= kDirectMaxK; }

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

/// Whether conv2d_bias runs the direct row kernel for these parameters (float,
/// a small patch, c_out a multiple of 16, neither oneDNN nor the reference loops).
bool direct_rows_apply(const backend::Conv2DParams& p, DType dtype);

/// Output rows [r0, r1) of the convolution (row = n·oh + oy), plus bias and
/// relu when given, written to `out` from row r0 on.
void conv_direct_rows_f32(const float* x, const float* w, const float* bias, bool relu, const backend::Conv2DParams& p,
                          float* out, int64_t r0, int64_t r1);

/// Rows [r0, r1) of the 2×2 stride-2 max pool (row = n·poh + py) over relu(conv + bias), the
/// convolution computed window by window in registers. `argmax` (null when no gradient is
/// wanted) gets each maximum's position in the convolution's output, or -1 where relu
/// passes no gradient; the values equal conv_direct_rows_f32 followed by max_pool2d.
void conv_pool_rows_f32(const float* x, const float* w, const float* bias, const backend::Conv2DParams& cp,
                        const backend::Pool2DParams& pp, float* out, int32_t* argmax, int64_t r0, int64_t r1);

/// Whether the K = 9 filter-gradient kernels apply (float, one input channel under a 3×3 kernel, c_out a multiple of 8).
bool direct_filter_9_applies(const backend::Conv2DParams& p, DType dtype);

/// The kernel gradient, and the bias gradient when `db` is given, over images [n0, n1) of a
/// batch's contiguous dY, masked by y > 0 when `y` is given (the fused relu).
void conv_filter_grad_9(const float* x, const float* dy, const float* y, const backend::Conv2DParams& p, float* dw,
                        float* db, int64_t n0, int64_t n1);

/// The kernel and bias gradients over images [n0, n1) into dw (9·c_out) and db (c_out), with
/// `dy_of(n)` giving image n's output gradient (oh·ow·c_out values, read before the next call).
void conv_bias_backward_filter_9(const float* x, const std::function<const float*(int64_t)>& dy_of,
                                 const backend::Conv2DParams& p, float* dw, float* db, int64_t n0, int64_t n1);

/// Whether a pool is the 2×2 stride-2 valid window the vector kernels take.
bool is_pool_2x2(const backend::Pool2DParams& p);
/// The max pool's rule, lane by lane: a later window element `u` replaces the
/// maximum so far `m` only when strictly greater, or NaN (a NaN anywhere in the
/// window is the result, as in Keras). Shared by max_pool2d and the fused conv + pool.
template <class V>
inline auto later_wins(V u, V m) {
  return (u > m) | ((u != u) & (m == m));
}
/// The 2×2 pool's gradient for image n alone, into dx_n (h·w·c values), times `scale` (same shape as dy) when not null.
void max_pool_2x2_backward_image_f32(const float* dy, const float* scale, const int32_t* argmax,
                                     const backend::Pool2DParams& p, int64_t n, float* dx_n);

}  // namespace kiln::cpu

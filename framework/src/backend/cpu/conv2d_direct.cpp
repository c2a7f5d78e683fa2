// The CPU's direct float convolution kernels for small patches: the forward
// row kernel (with bias and relu), the same kernel with a 2×2 max pool in its
// epilogue, and the K = 9 filter gradient. They run on the widest vectors the
// build targets (simd::wide: 16 lanes with AVX-512, else 8), one lane per
// output channel, and sum over the patch in the same order at every width, so
// their results do not depend on it.
#include <algorithm>
#include <functional>
#include <vector>

#include "backend/cpu/conv2d_direct.h"
#include "backend/cpu/conv2d_onednn.h"
#include "backend/cpu/reference.h"
#include "backend/cpu/simd.h"

namespace kiln::cpu {

namespace {
using namespace simd;

// Four pixels (their patches at `patch[q]`) × NV vectors of channels from c0:
// each kernel row loaded from L1 feeds 4·NV FMAs. Per pixel and channel the
// sum runs over k in order, as in conv_direct.
template <class V, int NV, int KT>
inline void four_pixels(const float* const (&patch)[4], int64_t K, const float* __restrict w, int64_t co, int64_t c0,
                        V (&a)[4][NV]) {
  constexpr int L = lanes<V>;
  for (auto& q : a)
    for (auto& v : q) v = V{};
  const int64_t kn = KT > 0 ? KT : K;
  for (int64_t k = 0; k < kn; ++k) {
    V wk[NV];
    for (int v = 0; v < NV; ++v) wk[v] = load<V>(w + k * co + c0 + v * L);
    for (int q = 0; q < 4; ++q) {
      const float b = patch[q][k];
      for (int v = 0; v < NV; ++v) a[q][v] += b * wk[v];
    }
  }
}

// The bias after the sum (as a separate bias_add would add it), then relu; NaN passes through relu.
template <class V>
inline V finish(V a, const float* bias, bool relu, int64_t c) {
  if (bias) a += load<V>(bias + c);
  if (relu) a = a <= V{} ? V{} : a;
  return a;
}

// Forward, float with c_out a multiple of 16: one output row at a time. The
// row's patches are gathered once into a small buffer; then 4 pixels × 2
// vectors of channels accumulate in 8 registers.
template <class V, int KT>
void conv_rows(const float* __restrict x, const float* __restrict w, const float* __restrict bias, bool relu,
               const backend::Conv2DParams& p, float* __restrict out, int64_t r0, int64_t r1) {
  constexpr int L = lanes<V>;
  const int64_t co = p.c_out, K = KT > 0 ? KT : p.kh * p.kw * p.c_in, OW = p.ow;
  thread_local std::vector<float> patches;
  patches.resize(static_cast<std::size_t>(OW * K));
  float* __restrict pt = patches.data();
  const PatchGatherer<float> gather(p);
  auto block = [&]<int NV>(const float* const (&pq)[4], float* o, int64_t c0) {
    V a[4][NV];
    four_pixels<V, NV, KT>(pq, K, w, co, c0, a);
    for (int q = 0; q < 4; ++q)
      for (int v = 0; v < NV; ++v) store<V>(o + q * co + c0 + v * L, finish(a[q][v], bias, relu, c0 + v * L));
  };
  for (int64_t row = r0; row < r1; ++row) {  // row = n·oh + oy
    const int64_t n = row / p.oh, oy = row % p.oh;
    for (int64_t ox = 0; ox < OW; ++ox) gather(x, n, oy, ox, pt + ox * K);
    float* orow = out + (row - r0) * OW * co;
    int64_t ox = 0;
    for (; ox + 4 <= OW; ox += 4) {
      const float* const pq[4] = {pt + ox * K, pt + (ox + 1) * K, pt + (ox + 2) * K, pt + (ox + 3) * K};
      int64_t c0 = 0;
      for (; c0 + 2 * L <= co; c0 += 2 * L) block.template operator()<2>(pq, orow + ox * co, c0);
      for (; c0 + L <= co; c0 += L) block.template operator()<1>(pq, orow + ox * co, c0);
    }
    for (; ox < OW; ++ox) {
      const float* p0 = pt + ox * K;
      for (int64_t c0 = 0; c0 + L <= co; c0 += L) {
        V a = {};
        for (int64_t k = 0; k < K; ++k) a += p0[k] * load<V>(w + k * co + c0);
        store<V>(orow + ox * co + c0, finish(a, bias, relu, c0));
      }
    }
  }
}

// The pool rows over relu(conv + bias): each window's four convolution pixels
// are one four_pixels block, pooled in registers with max_pool2d's rule
// (later_wins), so the convolution's output never exists.
template <class V, int KT>
void conv_pool_rows(const float* __restrict x, const float* __restrict w, const float* __restrict bias,
                    const backend::Conv2DParams& cp, const backend::Pool2DParams& pp, float* __restrict out,
                    int32_t* __restrict argmax, int64_t r0, int64_t r1) {
  using VI = int_vector<V>;
  constexpr int L = lanes<V>;
  const int64_t co = cp.c_out, K = KT > 0 ? KT : cp.kh * cp.kw * cp.c_in, cols = 2 * pp.ow;
  thread_local std::vector<float> patches;
  patches.resize(static_cast<std::size_t>(2 * cols * K));
  float* __restrict pt = patches.data();
  const PatchGatherer<float> gather(cp);
  const VI lane = lane_indices<V>();
  for (int64_t r = r0; r < r1; ++r) {  // r = n·poh + py
    const int64_t n = r / pp.oh, y0 = 2 * (r % pp.oh);
    for (int64_t dy = 0; dy < 2; ++dy)
      for (int64_t ox = 0; ox < cols; ++ox) gather(x, n, y0 + dy, ox, pt + (dy * cols + ox) * K);
    float* orow = out + r * pp.ow * co;
    int32_t* arow = argmax ? argmax + r * pp.ow * co : nullptr;
    const int64_t first = ((n * cp.oh + y0) * cp.ow) * co;  // the window row's first position in the conv output
    auto block = [&]<int NV>(int64_t px, int64_t c0) {
      const float* const pq[4] = {pt + 2 * px * K, pt + (2 * px + 1) * K, pt + (cols + 2 * px) * K,
                                  pt + (cols + 2 * px + 1) * K};
      V a[4][NV];
      four_pixels<V, NV, KT>(pq, K, w, co, c0, a);
      for (int v = 0; v < NV; ++v) {
        const int64_t c = c0 + v * L;
        const int64_t at[4] = {first + 2 * px * co + c, first + (2 * px + 1) * co + c,
                               first + (cp.ow + 2 * px) * co + c, first + (cp.ow + 2 * px + 1) * co + c};
        V m = finish(a[0][v], bias, true, c);
        VI i = static_cast<int32_t>(at[0]) + lane;
        for (int q = 1; q < 4; ++q) {
          const V u = finish(a[q][v], bias, true, c);
          const VI take = later_wins(u, m);
          m = take ? u : m;
          i = take ? static_cast<int32_t>(at[q]) + lane : i;
        }
        store<V>(orow + px * co + c, m);
        if (arow) store<V>(arow + px * co + c, m > V{} ? i : VI{} - 1);
      }
    };
    for (int64_t px = 0; px < pp.ow; ++px) {
      int64_t c0 = 0;
      for (; c0 + 2 * L <= co; c0 += 2 * L) block.template operator()<2>(px, c0);
      for (; c0 + L <= co; c0 += L) block.template operator()<1>(px, c0);
    }
  }
}

/// Image by image through a batch's contiguous dY.
auto images_of(const float* dy, const backend::Conv2DParams& p) {
  return [dy, size = p.oh * p.ow * p.c_out](int64_t n) { return dy + n * size; };
}

// Filter gradient: dW[k, :] += patch[k] · dY[pixel, :] over this thread's
// images. Float, K = 9 (a 3×3 kernel on one channel): image by image, the
// image's patches are gathered once, then for each block of output channels
// all K accumulators stay in registers while the image's pixels stream past;
// the image's dY (86 KB for 26×26×32) stays in L2 across the blocks.
// With Bias, the same pass also sums the bias gradient, and with Relu it masks
// dY by y > 0 on the fly (the fused conv2d_bias backward: no masked copy of dY).
// `dy_of(n)` gives image n's dY.
template <int K, bool Bias, bool Relu, class DyOf>
void filter_grad(const float* __restrict x, DyOf dy_of, const float* __restrict y, const backend::Conv2DParams& p,
                 float* __restrict dw, float* __restrict db, int64_t n0, int64_t n1) {
  const int64_t co = p.c_out, pixels = p.oh * p.ow;
  std::fill(dw, dw + K * co, 0.0f);
  if constexpr (Bias) std::fill(db, db + co, 0.0f);
  thread_local std::vector<float> patches;
  patches.resize(static_cast<std::size_t>(pixels * K));
  float* __restrict pt = patches.data();
  const PatchGatherer<float> gather(p);
  auto block = [&]<class V>(const float* dyn, const float* yn, int64_t c0) {
    V acc[K];
    for (int k = 0; k < K; ++k) acc[k] = V{};
    V bacc = {};
    for (int64_t i = 0; i < pixels; ++i) {
      V g = load<V>(dyn + i * co + c0);
      if constexpr (Relu) g = load<V>(yn + i * co + c0) > V{} ? g : V{};
      if constexpr (Bias) bacc += g;
      for (int k = 0; k < K; ++k) acc[k] += pt[i * K + k] * g;
    }
    for (int k = 0; k < K; ++k) store<V>(dw + k * co + c0, load<V>(dw + k * co + c0) + acc[k]);
    if constexpr (Bias) store<V>(db + c0, load<V>(db + c0) + bacc);
  };
  for (int64_t n = n0; n < n1; ++n) {
    for (int64_t oy = 0; oy < p.oh; ++oy)
      for (int64_t ox = 0; ox < p.ow; ++ox) gather(x, n, oy, ox, pt + (oy * p.ow + ox) * K);
    const float* dyn = dy_of(n);
    const float* yn = Relu ? y + n * pixels * co : nullptr;
    int64_t c0 = 0;
    for (; c0 + lanes<wide> <= co; c0 += lanes<wide>) block.template operator()<wide>(dyn, yn, c0);
    for (; c0 + 8 <= co; c0 += 8) block.template operator()<v8f>(dyn, yn, c0);
  }
}

}  // namespace

bool direct_rows_apply(const backend::Conv2DParams& p, DType dtype) {
  return dtype == DType::float32 && !reference_kernels() && !onednn::takes(p, onednn::Pass::forward) &&
         use_direct(p) && !is_pointwise(p) && p.c_out % 16 == 0;
}

void conv_direct_rows_f32(const float* x, const float* w, const float* bias, bool relu, const backend::Conv2DParams& p,
                          float* out, int64_t r0, int64_t r1) {
  if (p.kh * p.kw * p.c_in == 9) conv_rows<wide, 9>(x, w, bias, relu, p, out, r0, r1);
  else conv_rows<wide, 0>(x, w, bias, relu, p, out, r0, r1);
}

void conv_pool_rows_f32(const float* x, const float* w, const float* bias, const backend::Conv2DParams& cp,
                        const backend::Pool2DParams& pp, float* out, int32_t* argmax, int64_t r0, int64_t r1) {
  if (cp.kh * cp.kw * cp.c_in == 9) conv_pool_rows<wide, 9>(x, w, bias, cp, pp, out, argmax, r0, r1);
  else conv_pool_rows<wide, 0>(x, w, bias, cp, pp, out, argmax, r0, r1);
}

bool direct_filter_9_applies(const backend::Conv2DParams& p, DType dtype) {
  return dtype == DType::float32 && !reference_kernels() && use_direct(p) && !is_pointwise(p) &&
         p.kh * p.kw * p.c_in == 9 && p.c_out % 8 == 0;
}

void conv_filter_grad_9(const float* x, const float* dy, const float* y, const backend::Conv2DParams& p, float* dw,
                        float* db, int64_t n0, int64_t n1) {
  if (!db) return filter_grad<9, false, false>(x, images_of(dy, p), nullptr, p, dw, nullptr, n0, n1);
  if (y) return filter_grad<9, true, true>(x, images_of(dy, p), y, p, dw, db, n0, n1);
  filter_grad<9, true, false>(x, images_of(dy, p), nullptr, p, dw, db, n0, n1);
}

void conv_bias_backward_filter_9(const float* x, const std::function<const float*(int64_t)>& dy_of,
                                 const backend::Conv2DParams& p, float* dw, float* db, int64_t n0, int64_t n1) {
  filter_grad<9, true, false>(x, std::cref(dy_of), nullptr, p, dw, db, n0, n1);
}

}  // namespace kiln::cpu

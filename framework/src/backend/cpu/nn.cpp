// CPU kernels for pooling, dropout and the bias add.
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "backend/cpu/conv2d_direct.h"
#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/denormals.h"
#include "backend/cpu/parallel.h"
#include "backend/cpu/reference.h"
#include "backend/cpu/simd.h"
#include "core/dispatch.h"

namespace kiln::cpu {

bool is_pool_2x2(const backend::Pool2DParams& p) {
  return p.pool_h == 2 && p.pool_w == 2 && p.stride_h == 2 && p.stride_w == 2 && p.pad_top == 0 && p.pad_left == 0 &&
         p.h >= 2 * p.oh && p.w >= 2 * p.ow;
}

namespace {
using namespace simd;

// The common 2×2 stride-2 valid window: the four inputs compared directly,
// 8 channels at a time, images split over the pool. Same tie and NaN rule as
// the reference: a later element wins only when strictly greater or NaN (a
// NaN anywhere in the window is the result, as in Keras).
template <class T>
void max_pool_2x2(const T* x, const backend::Pool2DParams& p, T* out, int32_t* am, int64_t n0, int64_t n1) {
  const int64_t C = p.c;
  for (int64_t n = n0; n < n1; ++n)
    for (int64_t oy = 0; oy < p.oh; ++oy)
      for (int64_t ox = 0; ox < p.ow; ++ox) {
        const int64_t b0 = ((n * p.h + 2 * oy) * p.w + 2 * ox) * C;
        const int64_t base[4] = {b0, b0 + C, b0 + p.w * C, b0 + p.w * C + C};
        const int64_t o = ((n * p.oh + oy) * p.ow + ox) * C;
        int64_t c = 0;
        if constexpr (std::is_same_v<T, float>) {
          for (; c + 8 <= C; c += 8) {
            v8f v = load8(x + base[0] + c);
            v8i i = static_cast<int32_t>(base[0] + c) + lane_index();
            for (int k = 1; k < 4; ++k) {
              const v8f u = load8(x + base[k] + c);
              const v8i take = later_wins(u, v);
              v = take ? u : v;
              i = take ? static_cast<int32_t>(base[k] + c) + lane_index() : i;
            }
            store8(out + o + c, v);
            if (am) store8(am + o + c, i);
          }
        }
        for (; c < C; ++c) {
          T v = x[base[0] + c];
          int32_t i = static_cast<int32_t>(base[0] + c);
          for (int k = 1; k < 4; ++k)
            if (const T u = x[base[k] + c]; u > v || (u != u && v == v)) v = u, i = static_cast<int32_t>(base[k] + c);
          out[o + c] = v;
          if (am) am[o + c] = i;
        }
      }
}

// Backward of the 2×2 case, image n into dx_n (its h·w·c values), times
// `scale` where given (a dropout mask applied after the pool): every element
// is written exactly once (the gradient where it was the window's maximum,
// else 0), so no zeroing pass. argmax holds positions in the whole batch.
template <class T>
void max_pool_2x2_backward_image(const T* dy, const T* scale, const int32_t* am, const backend::Pool2DParams& p,
                                 int64_t n, T* dx_n) {
  const int64_t C = p.c, image = p.h * p.w * C;
  if (p.h > 2 * p.oh || p.w > 2 * p.ow) std::memset(dx_n, 0, sizeof(T) * image);  // rows/columns no window covers
  for (int64_t oy = 0; oy < p.oh; ++oy)
    for (int64_t ox = 0; ox < p.ow; ++ox) {
      const int64_t b0 = (2 * oy * p.w + 2 * ox) * C;
      const int64_t base[4] = {b0, b0 + C, b0 + p.w * C, b0 + p.w * C + C};
      const int64_t o = ((n * p.oh + oy) * p.ow + ox) * C, global = n * image;
      int64_t c = 0;
      if constexpr (std::is_same_v<T, float>) {
        for (; c + 8 <= C; c += 8) {
          v8f g = load8(dy + o + c);
          if (scale) g *= load8(scale + o + c);
          const v8i i = load8(am + o + c);
          for (int k = 0; k < 4; ++k)
            store8(dx_n + base[k] + c, i == static_cast<int32_t>(global + base[k] + c) + lane_index() ? g : v8f{});
        }
      }
      for (; c < C; ++c) {
        const T g = scale ? dy[o + c] * scale[o + c] : dy[o + c];
        for (int k = 0; k < 4; ++k) dx_n[base[k] + c] = am[o + c] == global + base[k] + c ? g : T(0);
      }
    }
}
}  // namespace

void max_pool_2x2_backward_image_f32(const float* dy, const float* scale, const int32_t* argmax,
                                     const backend::Pool2DParams& p, int64_t n, float* dx_n) {
  max_pool_2x2_backward_image(dy, scale, argmax, p, n, dx_n);
}

void CpuBackend::max_pool2d(const Tensor& x, const backend::Pool2DParams& p, Tensor& out, Tensor& argmax) {
  FlushDenormals flush;
  dispatch_float(x.dtype(), "max_pool2d", [&](auto tag) {
    using T = decltype(tag);
    const T* xp = static_cast<const T*>(x.raw_data());
    T* op = static_cast<T*>(out.raw_data());
    int32_t* am = argmax.size() > 0 ? host_ptr<int32_t>(argmax) : nullptr;  // empty: not wanted
    if (is_pool_2x2(p) && !reference_kernels()) {
      parallel_for(p.n, [&](int64_t n0, int64_t n1) { max_pool_2x2(xp, p, op, am, n0, n1); });
      return;
    }
    reference::max_pool2d(xp, p, op, am);
  });
}

void CpuBackend::max_pool2d_backward(const Tensor& dy, const Tensor& argmax, const backend::Pool2DParams& p, Tensor& dx) {
  FlushDenormals flush;
  dispatch_float(dy.dtype(), "max_pool2d_backward", [&](auto tag) {
    using T = decltype(tag);
    T* d = static_cast<T*>(dx.raw_data());
    const T* g = static_cast<const T*>(dy.raw_data());
    const int32_t* am = host_ptr<int32_t>(argmax);
    if (is_pool_2x2(p) && !reference_kernels()) {
      parallel_for(p.n, [&](int64_t n0, int64_t n1) {
        for (int64_t n = n0; n < n1; ++n) max_pool_2x2_backward_image<T>(g, nullptr, am, p, n, d + n * p.h * p.w * p.c);
      });
      return;
    }
    reference::max_pool2d_backward(g, am, dy.size(), dx.size(), d);
  });
}

namespace {
template <class T, bool Backward>
void avg_pool(const backend::Pool2DParams& p, const T* in, T* out) {
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t oy = 0; oy < p.oh; ++oy)
      for (int64_t ox = 0; ox < p.ow; ++ox) {
        const int64_t y0 = std::max<int64_t>(oy * p.stride_h - p.pad_top, 0);
        const int64_t y1 = std::min<int64_t>(oy * p.stride_h - p.pad_top + p.pool_h, p.h);
        const int64_t x0 = std::max<int64_t>(ox * p.stride_w - p.pad_left, 0);
        const int64_t x1 = std::min<int64_t>(ox * p.stride_w - p.pad_left + p.pool_w, p.w);
        const T inv = T(1) / static_cast<T>(std::max<int64_t>((y1 - y0) * (x1 - x0), 1));
        const int64_t o = ((n * p.oh + oy) * p.ow + ox) * p.c;
        if constexpr (!Backward) {
          for (int64_t c = 0; c < p.c; ++c) out[o + c] = 0;
          for (int64_t iy = y0; iy < y1; ++iy)
            for (int64_t ix = x0; ix < x1; ++ix) {
              const T* s = in + ((n * p.h + iy) * p.w + ix) * p.c;
              for (int64_t c = 0; c < p.c; ++c) out[o + c] += s[c];
            }
          for (int64_t c = 0; c < p.c; ++c) out[o + c] *= inv;
        } else {  // in = dy, out = dx
          for (int64_t iy = y0; iy < y1; ++iy)
            for (int64_t ix = x0; ix < x1; ++ix) {
              T* d = out + ((n * p.h + iy) * p.w + ix) * p.c;
              for (int64_t c = 0; c < p.c; ++c) d[c] += in[o + c] * inv;
            }
        }
      }
}
}  // namespace

void CpuBackend::avg_pool2d(const Tensor& x, const backend::Pool2DParams& p, Tensor& out) {
  FlushDenormals flush;
  dispatch_float(x.dtype(), "avg_pool2d", [&](auto tag) {
    using T = decltype(tag);
    avg_pool<T, false>(p, static_cast<const T*>(x.raw_data()), static_cast<T*>(out.raw_data()));
  });
}

void CpuBackend::avg_pool2d_backward(const Tensor& dy, const backend::Pool2DParams& p, Tensor& dx) {
  FlushDenormals flush;
  dispatch_float(dy.dtype(), "avg_pool2d_backward", [&](auto tag) {
    using T = decltype(tag);
    std::memset(dx.raw_data(), 0, sizeof(T) * dx.size());
    avg_pool<T, true>(p, static_cast<const T*>(dy.raw_data()), static_cast<T*>(dx.raw_data()));
  });
}

void CpuBackend::dropout(const Tensor& x, double rate, uint64_t seed, Tensor& out, Tensor& mask) {
  FlushDenormals flush;
  dispatch_float(x.dtype(), "dropout", [&](auto tag) {
    using T = decltype(tag);
    const T* xp = static_cast<const T*>(x.raw_data());
    T* op = static_cast<T*>(out.raw_data());
    T* mp = static_cast<T*>(mask.raw_data());
    const int64_t n = x.size();
    if (reference_kernels()) {
      reference::dropout(xp, n, rate, seed, op, mp);
      return;
    }
    // The same counter-based stream as the reference: one 64-bit draw per pair of
    // elements, so each thread generates its own range of the mask.
    const T scale = static_cast<T>(1.0 / (1.0 - rate));
    const uint32_t threshold = dropout_threshold(rate);
    parallel_for(
        (n + 1) / 2,
        [&](int64_t j0, int64_t j1) {
          int64_t j = j0;
          if constexpr (std::is_same_v<T, float>) {
            // Four draws at a time: the four 64-bit results, read as eight 32-bit
            // halves, are the uniforms of eight consecutive elements in order.
            typedef uint64_t v4u64 __attribute__((vector_size(32)));
            typedef uint32_t v8u32 __attribute__((vector_size(32)));
            const uint64_t golden = 0x9E3779B97F4A7C15ULL;
            const v8u32 thr = {threshold, threshold, threshold, threshold, threshold, threshold, threshold, threshold};
            const v8f sc = splat(scale);
            for (; j + 4 <= j1 && 2 * j + 8 <= n; j += 4) {
              v4u64 z = v4u64{uint64_t(j) + 1, uint64_t(j) + 2, uint64_t(j) + 3, uint64_t(j) + 4} * golden + seed;
              z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
              z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
              z ^= z >> 31;
              v8u32 r;
              __builtin_memcpy(&r, &z, sizeof r);
              const v8f m = r >= thr ? sc : v8f{};
              store8(mp + 2 * j, m);
              store8(op + 2 * j, load8(xp + 2 * j) * m);
            }
          }
          for (; j < j1; ++j) {
            const uint64_t z = splitmix64_at(seed, static_cast<uint64_t>(j));
            const int64_t i = 2 * j;
            mp[i] = static_cast<uint32_t>(z) >= threshold ? scale : T(0);
            op[i] = xp[i] * mp[i];
            if (i + 1 < n) {
              mp[i + 1] = static_cast<uint32_t>(z >> 32) >= threshold ? scale : T(0);
              op[i + 1] = xp[i + 1] * mp[i + 1];
            }
          }
        },
        8192);
  });
}

namespace {
// out may alias x (the fused conv's epilogue adds the bias in place).
template <class T>
void bias_add_rows(const T* x, const T* __restrict bias, int64_t rows, int64_t c, bool relu, T* out) {
  parallel_for(
      rows,
      [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          const T* xr = x + r * c;
          T* orow = out + r * c;
          if (relu)
            for (int64_t j = 0; j < c; ++j) {
              const T v = xr[j] + bias[j];
              orow[j] = v <= T(0) ? T(0) : v;  // NaN passes through, as in relu
            }
          else
            for (int64_t j = 0; j < c; ++j) orow[j] = xr[j] + bias[j];
        }
      },
      std::max<int64_t>(1, 16384 / std::max<int64_t>(c, 1)));
}
}  // namespace

void bias_add_inplace(Tensor& x, const Tensor& bias, bool relu) {
  dispatch_float(x.dtype(), "bias_add", [&](auto tag) {
    using T = decltype(tag);
    T* xp = static_cast<T*>(x.raw_data());
    const T* bp = static_cast<const T*>(bias.raw_data());
    const int64_t c = bias.size(), rows = c > 0 ? x.size() / c : 0;
    if (reference_kernels()) reference::bias_add(xp, bp, rows, c, relu, xp);
    else bias_add_rows(xp, bp, rows, c, relu, xp);
  });
}

void CpuBackend::bias_add(const Tensor& x, const Tensor& bias, bool relu, Tensor& out) {
  FlushDenormals flush;
  dispatch_float(x.dtype(), "bias_add", [&](auto tag) {
    using T = decltype(tag);
    const T* xp = static_cast<const T*>(x.raw_data());
    const T* bp = static_cast<const T*>(bias.raw_data());
    T* op = static_cast<T*>(out.raw_data());
    const int64_t c = bias.size(), rows = c > 0 ? x.size() / c : 0;
    if (reference_kernels()) reference::bias_add(xp, bp, rows, c, relu, op);
    else bias_add_rows(xp, bp, rows, c, relu, op);
  });
}

void CpuBackend::bias_add_backward(const Tensor& dy, const Tensor& y, bool relu, Tensor& dx, Tensor& db) {
  FlushDenormals flush;
  dispatch_float(dy.dtype(), "bias_add_backward", [&](auto tag) {
    using T = decltype(tag);
    const T* g = static_cast<const T*>(dy.raw_data());
    const T* yp = relu ? static_cast<const T*>(y.raw_data()) : nullptr;
    T* dxp = relu ? static_cast<T*>(dx.raw_data()) : nullptr;
    T* dbp = static_cast<T*>(db.raw_data());
    const int64_t c = db.size(), rows = c > 0 ? dy.size() / c : 0;
    if (reference_kernels()) {
      reference::bias_add_backward(g, yp, rows, c, relu, dxp, dbp);
      return;
    }
    // One pass: mask the gradient and sum its columns (per thread, then added).
    const int parts = rows * c >= 32768 ? num_threads() : 1;
    parallel_sum<T>(rows, parts, c, dbp, [&](int64_t r0, int64_t r1, T* __restrict acc) {
      for (int64_t r = r0; r < r1; ++r) {
        const T* __restrict gr = g + r * c;
        if (relu) {
          const T* __restrict yr = yp + r * c;
          T* __restrict dr = dxp + r * c;
          for (int64_t j = 0; j < c; ++j) {
            const T v = yr[j] > T(0) ? gr[j] : T(0);
            dr[j] = v;
            acc[j] += v;
          }
        } else {
          for (int64_t j = 0; j < c; ++j) acc[j] += gr[j];
        }
      }
    });
  });
}

}  // namespace kiln::cpu

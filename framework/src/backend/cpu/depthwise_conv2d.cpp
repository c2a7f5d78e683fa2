// CPU depthwise 2-D convolution, NHWC. Each output pixel's C·M channels are
// accumulated tap by tap, so the innermost loop runs over contiguous channels
// of the input row, the kernel tap and the output pixel alike (vectorised by
// the compiler for M = 1, the common case). A per-channel convolution through
// im2col + GEMM would instead run C tiny GEMMs of one column each.
#include <algorithm>
#include <cstring>

#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/parallel.h"
#include "core/dispatch.h"

namespace kiln::cpu {

namespace {

struct Geometry {
  int64_t c, m, cm;  // input channels, depth multiplier, output channels
  explicit Geometry(const backend::Conv2DParams& p) : c(p.c_in), m(p.c_out / p.c_in), cm(p.c_out) {}
};

/// acc[co] += a[co / M] · b[co] over the C·M output channels.
template <class T>
inline void mac_spread(T* __restrict acc, const T* __restrict a, const T* __restrict b, const Geometry& g) {
  if (g.m == 1) {
    for (int64_t c = 0; c < g.c; ++c) acc[c] += a[c] * b[c];
    return;
  }
  for (int64_t c = 0; c < g.c; ++c)
    for (int64_t k = 0; k < g.m; ++k) acc[c * g.m + k] += a[c] * b[c * g.m + k];
}

template <class T>
void forward(const T* x, const T* w, const backend::Conv2DParams& p, T* out) {
  const Geometry g(p);
  parallel_for(p.n * p.oh, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t n = r / p.oh, oy = r % p.oh;
      for (int64_t ox = 0; ox < p.ow; ++ox) {
        T* o = out + (r * p.ow + ox) * g.cm;
        std::fill(o, o + g.cm, T(0));
        for (int64_t i = 0; i < p.kh; ++i) {
          const int64_t iy = oy * p.stride_h - p.pad_top + i * p.dil_h;
          if (iy < 0 || iy >= p.h) continue;
          for (int64_t j = 0; j < p.kw; ++j) {
            const int64_t ix = ox * p.stride_w - p.pad_left + j * p.dil_w;
            if (ix < 0 || ix >= p.w) continue;
            mac_spread(o, x + ((n * p.h + iy) * p.w + ix) * g.c, w + (i * p.kw + j) * g.cm, g);
          }
        }
      }
    }
  });
}

/// dx[n, iy, ix, c] = Σ over the taps and outputs that read it of dy[.., c·M + m] · w[i, j, c, m].
template <class T>
void backward_input(const T* dy, const T* w, const backend::Conv2DParams& p, T* dx) {
  const Geometry g(p);
  parallel_for(p.n * p.h, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t n = r / p.h, iy = r % p.h;
      for (int64_t ix = 0; ix < p.w; ++ix) {
        T* d = dx + (r * p.w + ix) * g.c;
        std::fill(d, d + g.c, T(0));
        for (int64_t i = 0; i < p.kh; ++i) {
          const int64_t ty = iy + p.pad_top - i * p.dil_h;
          if (ty < 0 || ty % p.stride_h) continue;
          const int64_t oy = ty / p.stride_h;
          if (oy >= p.oh) continue;
          for (int64_t j = 0; j < p.kw; ++j) {
            const int64_t tx = ix + p.pad_left - j * p.dil_w;
            if (tx < 0 || tx % p.stride_w) continue;
            const int64_t ox = tx / p.stride_w;
            if (ox >= p.ow) continue;
            const T* gy = dy + ((n * p.oh + oy) * p.ow + ox) * g.cm;
            const T* wk = w + (i * p.kw + j) * g.cm;
            if (g.m == 1) {
              for (int64_t c = 0; c < g.c; ++c) d[c] += gy[c] * wk[c];
            } else {
              for (int64_t c = 0; c < g.c; ++c)
                for (int64_t k = 0; k < g.m; ++k) d[c] += gy[c * g.m + k] * wk[c * g.m + k];
            }
          }
        }
      }
    }
  });
}

/// dw[i, j, c, m] = Σ over the batch and output pixels of x[.., c] · dy[.., c·M + m];
/// rows of the output are split over the threads, each summing into its own buffer.
template <class T>
void backward_filter(const T* x, const T* dy, const backend::Conv2DParams& p, T* dw) {
  const Geometry g(p);
  const int64_t size = p.kh * p.kw * g.cm;
  const int parts = static_cast<int>(std::min<int64_t>(num_threads(), p.n * p.oh));
  parallel_sum<T>(p.n * p.oh, parts, size, dw, [&](int64_t r0, int64_t r1, T* acc) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t n = r / p.oh, oy = r % p.oh;
      for (int64_t ox = 0; ox < p.ow; ++ox) {
        const T* gy = dy + (r * p.ow + ox) * g.cm;
        for (int64_t i = 0; i < p.kh; ++i) {
          const int64_t iy = oy * p.stride_h - p.pad_top + i * p.dil_h;
          if (iy < 0 || iy >= p.h) continue;
          for (int64_t j = 0; j < p.kw; ++j) {
            const int64_t ix = ox * p.stride_w - p.pad_left + j * p.dil_w;
            if (ix < 0 || ix >= p.w) continue;
            mac_spread(acc + (i * p.kw + j) * g.cm, x + ((n * p.h + iy) * p.w + ix) * g.c, gy, g);
          }
        }
      }
    }
  });
}

}  // namespace

bool CpuBackend::has_depthwise_conv2d(DType dtype) const {
  return dtype == DType::float32 || dtype == DType::float64;
}

void CpuBackend::depthwise_conv2d(const Tensor& x, const Tensor& w, const backend::Conv2DParams& p, Tensor& out) {
  dispatch_float(x.dtype(), "depthwise_conv2d", [&](auto tag) {
    using T = decltype(tag);
    forward(host_ptr<T>(x), host_ptr<T>(w), p, host_ptr<T>(out));
  });
}

void CpuBackend::depthwise_conv2d_backward_input(const Tensor& dy, const Tensor& w, const backend::Conv2DParams& p,
                                                 Tensor& dx) {
  dispatch_float(dy.dtype(), "depthwise_conv2d_backward_input", [&](auto tag) {
    using T = decltype(tag);
    backward_input(host_ptr<T>(dy), host_ptr<T>(w), p, host_ptr<T>(dx));
  });
}

void CpuBackend::depthwise_conv2d_backward_filter(const Tensor& x, const Tensor& dy, const backend::Conv2DParams& p,
                                                  Tensor& dw) {
  dispatch_float(x.dtype(), "depthwise_conv2d_backward_filter", [&](auto tag) {
    using T = decltype(tag);
    backward_filter(host_ptr<T>(x), host_ptr<T>(dy), p, host_ptr<T>(dw));
  });
}

}  // namespace kiln::cpu

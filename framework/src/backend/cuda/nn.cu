// CUDA kernels: NHWC max/avg pooling with TF padding semantics, im2col/col2im
// for the GEMM convolution path (float64, or float32 shapes cuDNN refuses), and
// integer matmul. Pooling backward passes are written in gather form (each
// input pixel sums the windows that cover it), so they need no atomics and
// give the same bits on every run.
#include "backend/cuda/common.cuh"
#include "backend/cuda/kernels.h"

namespace kiln::cuda::k {
namespace {

/// Output rows [lo, hi) whose window (start o*stride - pad, length len) covers input i.
__device__ __forceinline__ void covering(int64_t i, int64_t pad, int len, int stride, int64_t out_n, int64_t& lo,
                                         int64_t& hi) {
  const int64_t t = i + pad;  // o*stride <= t < o*stride + len
  lo = t - len + 1 <= 0 ? 0 : (t - len + 1 + stride - 1) / stride;
  hi = t / stride + 1;
  if (hi > out_n) hi = out_n;
}

// One thread per output element, channels fastest so a warp reads
// consecutive channels. I is the index type: 32-bit division is several times
// cheaper than 64-bit, and every guide-size pool fits in it. The argmax, which
// only the gradient reads, is written when asked for.
template <class T, class I, bool kArgmax>
__global__ void max_pool_kernel(const T* x, T* out, int32_t* argmax, const __grid_constant__ PoolDims p) {
  const I C = static_cast<I>(p.c), OW = static_cast<I>(p.ow), OH = static_cast<I>(p.oh);
  const I H = static_cast<I>(p.h), W = static_cast<I>(p.w);
  KILN_GRID_STRIDE(t64, p.n * p.oh * p.ow * p.c) {
    const I t = static_cast<I>(t64);
    const I c = t % C;
    I r = t / C;
    const I ox = r % OW;
    r /= OW;
    const I oy = r % OH, n = r / OH;
    T best = neg_infinity<T>();
    I bidx = -1;
    // Same visiting order, tie and NaN rule as the CPU backend: a later element
    // wins only when strictly greater, or when it is the window's first NaN.
    for (int ky = 0; ky < p.ph; ++ky) {
      const I iy = oy * p.sh + ky - static_cast<I>(p.pt);
      if (iy < 0 || iy >= H) continue;
      for (int kx = 0; kx < p.pw; ++kx) {
        const I ix = ox * p.sw + kx - static_cast<I>(p.pl);
        if (ix < 0 || ix >= W) continue;
        const I i = ((n * H + iy) * W + ix) * C + c;
        const T v = x[i];
        if (bidx < 0 || v > best || (v != v && best == best)) {
          best = v;
          bidx = i;
        }
      }
    }
    out[t] = best;
    if constexpr (kArgmax) argmax[t] = static_cast<int32_t>(bidx);
  }
}

template <class T>
__global__ void max_pool_backward_kernel(const T* dy, const int32_t* argmax, T* dx, const __grid_constant__ PoolDims p) {
  KILN_GRID_STRIDE(t, p.n * p.h * p.w * p.c) {
    const int64_t c = t % p.c;
    int64_t r = t / p.c;
    const int64_t ix = r % p.w;
    r /= p.w;
    const int64_t iy = r % p.h, n = r / p.h;
    int64_t y0, y1, x0, x1;
    covering(iy, p.pt, p.ph, p.sh, p.oh, y0, y1);
    covering(ix, p.pl, p.pw, p.sw, p.ow, x0, x1);
    T acc = T(0);
    for (int64_t oy = y0; oy < y1; ++oy)
      for (int64_t ox = x0; ox < x1; ++ox) {
        const int64_t o = ((n * p.oh + oy) * p.ow + ox) * p.c + c;
        if (argmax[o] == t) acc += dy[o];
      }
    dx[t] = acc;
  }
}

template <class T>
__device__ __forceinline__ T avg_inv(const PoolDims& p, int64_t oy, int64_t ox) {
  const int64_t y0 = oy * p.sh - p.pt > 0 ? oy * p.sh - p.pt : 0;
  const int64_t y1 = oy * p.sh - p.pt + p.ph < p.h ? oy * p.sh - p.pt + p.ph : p.h;
  const int64_t x0 = ox * p.sw - p.pl > 0 ? ox * p.sw - p.pl : 0;
  const int64_t x1 = ox * p.sw - p.pl + p.pw < p.w ? ox * p.sw - p.pl + p.pw : p.w;
  const int64_t cnt = (y1 - y0) * (x1 - x0);
  return T(1) / static_cast<T>(cnt > 1 ? cnt : 1);  // padding is not counted, as TF's 'same'
}

template <class T>
__global__ void avg_pool_kernel(const T* x, T* out, const __grid_constant__ PoolDims p) {
  KILN_GRID_STRIDE(t, p.n * p.oh * p.ow * p.c) {
    const int64_t c = t % p.c;
    int64_t r = t / p.c;
    const int64_t ox = r % p.ow;
    r /= p.ow;
    const int64_t oy = r % p.oh, n = r / p.oh;
    T acc = T(0);
    for (int ky = 0; ky < p.ph; ++ky) {
      const int64_t iy = oy * p.sh + ky - p.pt;
      if (iy < 0 || iy >= p.h) continue;
      for (int kx = 0; kx < p.pw; ++kx) {
        const int64_t ix = ox * p.sw + kx - p.pl;
        if (ix < 0 || ix >= p.w) continue;
        acc += x[((n * p.h + iy) * p.w + ix) * p.c + c];
      }
    }
    out[t] = acc * avg_inv<T>(p, oy, ox);
  }
}

template <class T>
__global__ void avg_pool_backward_kernel(const T* dy, T* dx, const __grid_constant__ PoolDims p) {
  KILN_GRID_STRIDE(t, p.n * p.h * p.w * p.c) {
    const int64_t c = t % p.c;
    int64_t r = t / p.c;
    const int64_t ix = r % p.w;
    r /= p.w;
    const int64_t iy = r % p.h, n = r / p.h;
    int64_t y0, y1, x0, x1;
    covering(iy, p.pt, p.ph, p.sh, p.oh, y0, y1);
    covering(ix, p.pl, p.pw, p.sw, p.ow, x0, x1);
    T acc = T(0);
    for (int64_t oy = y0; oy < y1; ++oy)
      for (int64_t ox = x0; ox < x1; ++ox) acc += dy[((n * p.oh + oy) * p.ow + ox) * p.c + c] * avg_inv<T>(p, oy, ox);
    dx[t] = acc;
  }
}

template <class T>
__global__ void im2col_kernel(const T* x, T* col, const __grid_constant__ ConvDims p) {
  const int64_t K = p.kh * p.kw * p.c_in;
  KILN_GRID_STRIDE(t, p.n * p.oh * p.ow * K) {
    const int64_t kk = t % K, row = t / K;
    const int64_t ci = kk % p.c_in, kxy = kk / p.c_in;
    const int64_t kx = kxy % p.kw, ky = kxy / p.kw;
    const int64_t ox = row % p.ow, r2 = row / p.ow;
    const int64_t oy = r2 % p.oh, n = r2 / p.oh;
    const int64_t iy = oy * p.sh + ky * p.dh - p.pt, ix = ox * p.sw + kx * p.dw - p.pl;
    col[t] = (iy < 0 || iy >= p.h || ix < 0 || ix >= p.w) ? T(0) : x[((n * p.h + iy) * p.w + ix) * p.c_in + ci];
  }
}

template <class T>
__global__ void col2im_kernel(const T* col, T* dx, const __grid_constant__ ConvDims p) {
  const int64_t K = p.kh * p.kw * p.c_in;
  KILN_GRID_STRIDE(t, p.n * p.h * p.w * p.c_in) {
    const int64_t ci = t % p.c_in;
    int64_t r = t / p.c_in;
    const int64_t ix = r % p.w;
    r /= p.w;
    const int64_t iy = r % p.h, n = r / p.h;
    T acc = T(0);
    for (int64_t ky = 0; ky < p.kh; ++ky) {
      const int64_t ty = iy + p.pt - ky * p.dh;  // = oy * stride
      if (ty < 0 || ty % p.sh != 0 || ty / p.sh >= p.oh) continue;
      const int64_t oy = ty / p.sh;
      for (int64_t kx = 0; kx < p.kw; ++kx) {
        const int64_t tx = ix + p.pl - kx * p.dw;
        if (tx < 0 || tx % p.sw != 0 || tx / p.sw >= p.ow) continue;
        const int64_t ox = tx / p.sw;
        acc += col[((n * p.oh + oy) * p.ow + ox) * K + (ky * p.kw + kx) * p.c_in + ci];
      }
    }
    dx[t] = acc;
  }
}

template <class T>
__global__ void int_matmul_kernel(const T* a, const T* b, T* out, int64_t B, int64_t M, int64_t N, int64_t K, bool ta,
                                  bool tb, int64_t a_step, int64_t b_step) {
  KILN_GRID_STRIDE(t, B * M * N) {
    const int64_t c = t % N, r2 = t / N;
    const int64_t r = r2 % M, bi = r2 / M;
    const T* A = a + bi * a_step;
    const T* Bm = b + bi * b_step;
    T acc = T(0);
    for (int64_t kk = 0; kk < K; ++kk)
      acc = static_cast<T>(acc + (ta ? A[kk * M + r] : A[r * K + kk]) * (tb ? Bm[c * K + kk] : Bm[kk * N + c]));
    out[t] = acc;
  }
}

}  // namespace

void max_pool(DT dt, const void* x, void* out, int32_t* argmax, const PoolDims& p, cudaStream_t s) {
  const int64_t total = p.n * p.oh * p.ow * p.c;
  if (total <= 0) return;
  dispatch_float(dt, [&](auto tag) {
    using T = decltype(tag);
    const T* xp = static_cast<const T*>(x);
    T* op = static_cast<T*>(out);
    const bool narrow = p.n * p.h * p.w * p.c < (int64_t{1} << 31);  // then so is every output index
    if (narrow && argmax) max_pool_kernel<T, int32_t, true><<<grid_for(total), kThreads, 0, s>>>(xp, op, argmax, p);
    else if (narrow) max_pool_kernel<T, int32_t, false><<<grid_for(total), kThreads, 0, s>>>(xp, op, argmax, p);
    else if (argmax) max_pool_kernel<T, int64_t, true><<<grid_for(total), kThreads, 0, s>>>(xp, op, argmax, p);
    else max_pool_kernel<T, int64_t, false><<<grid_for(total), kThreads, 0, s>>>(xp, op, argmax, p);
  });
}

void max_pool_backward(DT dt, const void* dy, const int32_t* argmax, void* dx, const PoolDims& p, cudaStream_t s) {
  const int64_t total = p.n * p.h * p.w * p.c;
  if (total <= 0) return;
  dispatch_float(dt, [&](auto tag) {
    using T = decltype(tag);
    max_pool_backward_kernel<T><<<grid_for(total), kThreads, 0, s>>>(static_cast<const T*>(dy), argmax,
                                                                     static_cast<T*>(dx), p);
  });
}

void avg_pool(DT dt, const void* x, void* out, const PoolDims& p, cudaStream_t s) {
  const int64_t total = p.n * p.oh * p.ow * p.c;
  if (total <= 0) return;
  dispatch_float(dt, [&](auto tag) {
    using T = decltype(tag);
    avg_pool_kernel<T><<<grid_for(total), kThreads, 0, s>>>(static_cast<const T*>(x), static_cast<T*>(out), p);
  });
}

void avg_pool_backward(DT dt, const void* dy, void* dx, const PoolDims& p, cudaStream_t s) {
  const int64_t total = p.n * p.h * p.w * p.c;
  if (total <= 0) return;
  dispatch_float(dt, [&](auto tag) {
    using T = decltype(tag);
    avg_pool_backward_kernel<T><<<grid_for(total), kThreads, 0, s>>>(static_cast<const T*>(dy), static_cast<T*>(dx), p);
  });
}

void im2col(DT dt, const void* x, void* col, const ConvDims& p, cudaStream_t s) {
  const int64_t total = p.n * p.oh * p.ow * p.kh * p.kw * p.c_in;
  if (total <= 0) return;
  dispatch_float(dt, [&](auto tag) {
    using T = decltype(tag);
    im2col_kernel<T><<<grid_for(total), kThreads, 0, s>>>(static_cast<const T*>(x), static_cast<T*>(col), p);
  });
}

void col2im(DT dt, const void* col, void* dx, const ConvDims& p, cudaStream_t s) {
  const int64_t total = p.n * p.h * p.w * p.c_in;
  if (total <= 0) return;
  dispatch_float(dt, [&](auto tag) {
    using T = decltype(tag);
    col2im_kernel<T><<<grid_for(total), kThreads, 0, s>>>(static_cast<const T*>(col), static_cast<T*>(dx), p);
  });
}

void int_matmul(DT dt, const void* a, const void* b, void* out, int64_t B, int64_t M, int64_t N, int64_t K, bool ta,
                bool tb, int64_t a_step, int64_t b_step, cudaStream_t s) {
  const int64_t total = B * M * N;
  if (total <= 0) return;
  dispatch_numeric(dt, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_floating_point_v<T>)
      int_matmul_kernel<T><<<grid_for(total), kThreads, 0, s>>>(static_cast<const T*>(a), static_cast<const T*>(b),
                                                                static_cast<T*>(out), B, M, N, K, ta, tb, a_step,
                                                                b_step);
  });
}

}  // namespace kiln::cuda::k

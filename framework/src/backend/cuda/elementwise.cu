// CUDA kernels: fill, cast, strided copies, unary maths, broadcasting binary
// ops and where. Each mirrors the CPU backend (cpu/elementwise.cpp) element for
// element; comments note where the GPU must differ.
#include <cmath>

#include "backend/cuda/common.cuh"
#include "backend/cuda/elementwise_ops.cuh"
#include "backend/cuda/kernels.h"

namespace kiln::cuda::k {
namespace {

template <class T>
constexpr bool is_half_v = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

// One rounding to a 16-bit float, to nearest even, as the CPU's conversions:
// from float directly, from everything else through double (exact for every
// integer a 16-bit float can hold apart from rounding, and for double itself).
template <class H, class S>
__device__ __forceinline__ H to_half(S v) {
  if constexpr (std::is_same_v<S, float>) {
    if constexpr (std::is_same_v<H, __half>) return __float2half_rn(v);
    else return __float2bfloat16_rn(v);
  } else {
    const double d = static_cast<double>(v);
    if constexpr (std::is_same_v<H, __half>) return __double2half(d);
    else return __double2bfloat16(d);
  }
}

template <class H>
__device__ __forceinline__ float from_half(H v) {
  if constexpr (std::is_same_v<H, __half>) return __half2float(v);
  else return __bfloat162float(v);
}

// A 16-bit float converts exactly to float, and from there as a float would.
template <class D, class S>
__device__ __forceinline__ D convert(S v) {
  if constexpr (is_half_v<S>) {
    return convert<D>(from_half(v));
  } else if constexpr (is_half_v<D>) {
    if constexpr (std::is_same_v<S, bool>) return to_half<D>(v ? 1.0f : 0.0f);
    else return to_half<D>(v);
  } else if constexpr (std::is_same_v<D, bool>) {
    return v != S(0);
  } else {
    return static_cast<D>(v);
  }
}

// The value arrives as a double and is converted once per thread, as cast would convert it.
template <class T>
__global__ void fill_kernel(T* out, int64_t n, double v) {
  const T x = convert<T>(v);
  KILN_GRID_STRIDE(i, n) out[i] = x;
}

template <class S, class D>
__global__ void cast_kernel(const S* x, D* out, int64_t n) {
  KILN_GRID_STRIDE(i, n) out[i] = convert<D>(x[i]);
}

template <class T>
__global__ void strided_copy_kernel(const T* src, T* dst, const __grid_constant__ Plan p, bool accumulate,
                                    bool atomic) {
  KILN_GRID_STRIDE(i, p.n) {
    int64_t off[2];
    plan_offsets<2>(p, i, off);
    const T v = src[off[1]];
    if (!accumulate) {
      dst[off[0]] = v;
    } else if (atomic) {
      atomic_add_any(dst + off[0], v);
    } else if constexpr (std::is_same_v<T, bool>) {
      dst[off[0]] = dst[off[0]] || v;
    } else {
      dst[off[0]] = static_cast<T>(dst[off[0]] + v);
    }
  }
}

template <class T>
__global__ void unary_kernel(Un op, const T* x, T* out, int64_t n) {
  KILN_GRID_STRIDE(i, n) {
    if constexpr (std::is_floating_point_v<T>) out[i] = unary_float(op, x[i]);
    else if constexpr (std::is_same_v<T, bool>) out[i] = !x[i];
    else out[i] = unary_int(op, x[i]);
  }
}

template <class T>
__global__ void classify_kernel(bool is_nan, const T* x, bool* out, int64_t n) {
  KILN_GRID_STRIDE(i, n) {
    if constexpr (std::is_floating_point_v<T>) out[i] = is_nan ? isnan(x[i]) : isfinite(x[i]);
    else out[i] = !is_nan;
  }
}

template <class T, class R>
__global__ void binary_kernel(Bin op, const T* a, const T* b, R* out, const __grid_constant__ Plan p) {
  KILN_GRID_STRIDE(i, p.n) {
    int64_t off[3];
    plan_offsets<3>(p, i, off);
    if constexpr (std::is_same_v<R, bool>) out[off[0]] = compare(op, a[off[1]], b[off[2]]);
    else out[off[0]] = arith(op, a[off[1]], b[off[2]]);
  }
}

// Same-shape contiguous fast path: no index arithmetic at all.
template <class T, class R>
__global__ void binary_flat_kernel(Bin op, const T* a, const T* b, R* out, int64_t n) {
  KILN_GRID_STRIDE(i, n) {
    if constexpr (std::is_same_v<R, bool>) out[i] = compare(op, a[i], b[i]);
    else out[i] = arith(op, a[i], b[i]);
  }
}

template <class T>
__global__ void where_kernel(const bool* c, const T* x, const T* y, T* out, const __grid_constant__ Plan p) {
  KILN_GRID_STRIDE(i, p.n) {
    int64_t off[4];
    plan_offsets<4>(p, i, off);
    out[off[0]] = c[off[1]] ? x[off[2]] : y[off[3]];
  }
}

bool is_compare(Bin op) {
  return op == Bin::eq || op == Bin::ne || op == Bin::lt || op == Bin::le || op == Bin::gt || op == Bin::ge ||
         op == Bin::logical_and || op == Bin::logical_or;
}

bool is_flat(const Plan& p) {
  return p.rank == 1 && p.stride[0][0] == 1 && p.stride[1][0] == 1 && p.stride[2][0] == 1;
}

}  // namespace

void fill(DT dt, void* out, int64_t n, double value, cudaStream_t s) {
  if (n <= 0) return;
  dispatch_storage(dt, [&](auto tag) {
    using T = decltype(tag);
    fill_kernel<T><<<grid_for(n), kThreads, 0, s>>>(static_cast<T*>(out), n, value);
  });
}

void cast(DT src, DT dst, const void* x, void* out, int64_t n, cudaStream_t s) {
  if (n <= 0) return;
  dispatch_storage(src, [&](auto ts) {
    using S = decltype(ts);
    dispatch_storage(dst, [&](auto td) {
      using D = decltype(td);
      cast_kernel<S, D><<<grid_for(n), kThreads, 0, s>>>(static_cast<const S*>(x), static_cast<D*>(out), n);
    });
  });
}

void strided_copy(DT dt, const void* src, int64_t src_off, void* dst, int64_t dst_off, const Plan& p, bool accumulate,
                  bool atomic, cudaStream_t s) {
  if (p.n <= 0) return;
  dispatch_bits(dt, [&](auto tag) {
    using T = decltype(tag);
    strided_copy_kernel<T><<<grid_for(p.n), kThreads, 0, s>>>(static_cast<const T*>(src) + src_off,
                                                              static_cast<T*>(dst) + dst_off, p, accumulate, atomic);
  });
}

void unary(Un op, DT dt, const void* x, void* out, int64_t n, cudaStream_t s) {
  if (n <= 0) return;
  if (op == Un::isnan || op == Un::isfinite) {
    dispatch_all(dt, [&](auto tag) {
      using T = decltype(tag);
      classify_kernel<T><<<grid_for(n), kThreads, 0, s>>>(op == Un::isnan, static_cast<const T*>(x),
                                                          static_cast<bool*>(out), n);
    });
    return;
  }
  dispatch_all(dt, [&](auto tag) {
    using T = decltype(tag);
    unary_kernel<T><<<grid_for(n), kThreads, 0, s>>>(op, static_cast<const T*>(x), static_cast<T*>(out), n);
  });
}

void binary(Bin op, DT dt, const void* a, const void* b, void* out, const Plan& p, cudaStream_t s) {
  if (p.n <= 0) return;
  const bool flat = is_flat(p);
  dispatch_all(dt, [&](auto tag) {
    using T = decltype(tag);
    const T* ap = static_cast<const T*>(a);
    const T* bp = static_cast<const T*>(b);
    if (is_compare(op)) {
      bool* o = static_cast<bool*>(out);
      if (flat) binary_flat_kernel<T, bool><<<grid_for(p.n), kThreads, 0, s>>>(op, ap, bp, o, p.n);
      else binary_kernel<T, bool><<<grid_for(p.n), kThreads, 0, s>>>(op, ap, bp, o, p);
    } else if constexpr (!std::is_same_v<T, bool>) {
      T* o = static_cast<T*>(out);
      if (flat) binary_flat_kernel<T, T><<<grid_for(p.n), kThreads, 0, s>>>(op, ap, bp, o, p.n);
      else binary_kernel<T, T><<<grid_for(p.n), kThreads, 0, s>>>(op, ap, bp, o, p);
    }
  });
}

void where(DT dt, const bool* cond, const void* x, const void* y, void* out, const Plan& p, cudaStream_t s) {
  if (p.n <= 0) return;
  dispatch_all(dt, [&](auto tag) {
    using T = decltype(tag);
    where_kernel<T><<<grid_for(p.n), kThreads, 0, s>>>(cond, static_cast<const T*>(x), static_cast<const T*>(y),
                                                       static_cast<T*>(out), p);
  });
}

}  // namespace k

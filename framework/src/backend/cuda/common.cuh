#pragma once
// Private, nvcc only: helpers shared by the kernel files. Kernels use
// grid-stride loops, so the grid size is capped and any n works.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "backend/cuda/kernel_types.h"

namespace kiln::cuda::k {

constexpr int kThreads = 256;

inline unsigned grid_for(int64_t n, int threads = kThreads) {
  int64_t b = (n + threads - 1) / threads;
  if (b < 1) b = 1;
  if (b > 65535 * 8) b = 65535 * 8;  // grid-stride loops cover the rest
  return static_cast<unsigned>(b);
}

#define KILN_GRID_STRIDE(i, n)                                                                     \
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n);         \
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)

/// Calls f(T{}) for the C++ type of dt (bool for b8).
template <class F>
void dispatch_all(DT dt, F&& f) {
  switch (dt) {
    case DT::f32: f(float{}); break;
    case DT::f64: f(double{}); break;
    case DT::i32: f(int32_t{}); break;
    case DT::i64: f(int64_t{}); break;
    case DT::u8: f(uint8_t{}); break;
    case DT::b8: f(bool{}); break;
    case DT::f16: case DT::bf16: case DT::i8: break;  // refused on the host (to_dt)
  }
}
/// Calls f(T{}) for the storage type of dt, the 16-bit floats included:
/// for fill and cast, which convert them.
template <class F>
void dispatch_storage(DT dt, F&& f) {
  if (dt == DT::f16) f(__half{});
  else if (dt == DT::bf16) f(__nv_bfloat16{});
  else if (dt == DT::i8) f(int8_t{});
  else dispatch_all(dt, f);
}
/// Calls f(T{}) for an unsigned type of dt's size: for copies, which move bits.
template <class F>
void dispatch_bits(DT dt, F&& f) {
  if (dt == DT::f16 || dt == DT::bf16) f(uint16_t{});
  else if (dt == DT::i8) f(uint8_t{});
  else dispatch_all(dt, f);
}
template <class F>
void dispatch_float(DT dt, F&& f) {
  if (dt == DT::f32) f(float{});
  else if (dt == DT::f64) f(double{});
}
/// Numeric types (no bool).
template <class F>
void dispatch_numeric(DT dt, F&& f) {
  switch (dt) {
    case DT::f32: f(float{}); break;
    case DT::f64: f(double{}); break;
    case DT::i32: f(int32_t{}); break;
    case DT::i64: f(int64_t{}); break;
    case DT::u8: f(uint8_t{}); break;
    case DT::b8: case DT::f16: case DT::bf16: case DT::i8: break;
  }
}

/// Element offsets of flat index i for the first N operands of a plan. The
/// outermost dimension needs no division, so rank 1 and 2 plans (the usual
/// case after merging) cost at most one 64-bit divmod per element.
template <int N>
__device__ __forceinline__ void plan_offsets(const Plan& p, int64_t i, int64_t (&off)[N]) {
#pragma unroll
  for (int k = 0; k < N; ++k) off[k] = 0;
  for (int d = p.rank - 1; d > 0; --d) {
    const int64_t dim = p.shape[d];
    const int64_t q = i / dim;
    const int64_t r = i - q * dim;
    i = q;
#pragma unroll
    for (int k = 0; k < N; ++k) off[k] += r * p.stride[k][d];
  }
#pragma unroll
  for (int k = 0; k < N; ++k) off[k] += i * p.stride[k][0];
}

/// Index of idx[j] as int64 for any integer index dtype.
__device__ __forceinline__ int64_t load_index(DT dt, const void* idx, int64_t j) {
  switch (dt) {
    case DT::i32: return static_cast<const int32_t*>(idx)[j];
    case DT::i64: return static_cast<const int64_t*>(idx)[j];
    case DT::u8: return static_cast<const uint8_t*>(idx)[j];
    case DT::i8: return static_cast<const int8_t*>(idx)[j];
    default: return -1;
  }
}

/// *addr += v atomically for every element type (uint8 through a CAS on its
/// 32-bit word; bool as logical or, which only ever writes true).
template <class T>
__device__ __forceinline__ void atomic_add_any(T* addr, T v) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, int32_t>) {
    atomicAdd(addr, v);
  } else if constexpr (std::is_same_v<T, int64_t>) {
    atomicAdd(reinterpret_cast<unsigned long long*>(addr), static_cast<unsigned long long>(v));
  } else if constexpr (std::is_same_v<T, bool>) {
    if (v) *addr = true;
  } else {  // uint8_t
    auto base = reinterpret_cast<uintptr_t>(addr);
    auto* word = reinterpret_cast<unsigned int*>(base & ~uintptr_t(3));
    const unsigned shift = static_cast<unsigned>(base & 3) * 8;
    unsigned old = *word, assumed;
    do {
      assumed = old;
      const unsigned byte = ((assumed >> shift) + static_cast<unsigned>(v)) & 0xFFu;
      old = atomicCAS(word, assumed, (assumed & ~(0xFFu << shift)) | (byte << shift));
    } while (assumed != old);
  }
}

template <class T>
__device__ __forceinline__ T neg_infinity() {
  if constexpr (std::is_same_v<T, float>) return -__int_as_float(0x7f800000);
  else return -__longlong_as_double(0x7ff0000000000000LL);
}

}  // namespace kiln::cuda::k

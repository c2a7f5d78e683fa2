#pragma once
// Private, nvcc only: the element-wise maths of one value, shared by the
// single-op kernels (elementwise.cu) and the fused chains (fused.cu) so both
// compute exactly the same function.
#include <cmath>
#include <type_traits>

#include "backend/cuda/kernel_types.h"
#include "backend/int_pow.h"

namespace kiln::cuda::k {

// ---- unary ----
template <class T>
__device__ __forceinline__ T unary_float(Un op, T v) {
  constexpr bool F = std::is_same_v<T, float>;
  switch (op) {
    case Un::neg: return -v;
    case Un::abs: return F ? fabsf(v) : fabs(v);
    case Un::sign: return v > T(0) ? T(1) : (v < T(0) ? T(-1) : T(0));
    case Un::exp: return F ? expf(v) : exp(v);
    case Un::log: return F ? logf(v) : log(v);
    case Un::log1p: return F ? log1pf(v) : log1p(v);
    case Un::expm1: return F ? expm1f(v) : expm1(v);
    case Un::sqrt: return F ? sqrtf(v) : sqrt(v);
    case Un::rsqrt: return T(1) / (F ? sqrtf(v) : sqrt(v));  // not rsqrtf: match 1/sqrt rounding
    case Un::square: return v * v;
    case Un::sin: return F ? sinf(v) : sin(v);
    case Un::cos: return F ? cosf(v) : cos(v);
    case Un::tanh: return F ? tanhf(v) : tanh(v);
    case Un::erf: return F ? erff(v) : erf(v);
    case Un::sigmoid:
      // Split by sign so exp never overflows (as the CPU backend).
      if (v >= T(0)) return T(1) / (T(1) + (F ? expf(-v) : exp(-v)));
      else {
        const T e = F ? expf(v) : exp(v);
        return e / (T(1) + e);
      }
    case Un::relu: return v > T(0) ? v : T(0);
    case Un::softplus: {
      const T a = F ? fabsf(v) : fabs(v);
      return (v > T(0) ? v : T(0)) + (F ? log1pf(expf(-a)) : log1p(exp(-a)));
    }
    case Un::floor: return F ? floorf(v) : floor(v);
    case Un::round: return F ? rintf(v) : rint(v);  // half to even, like tf.round
    default: return v;
  }
}

template <class T>
__device__ __forceinline__ T unary_int(Un op, T v) {
  switch (op) {
    case Un::neg: return static_cast<T>(-v);
    case Un::abs: return v < T(0) ? static_cast<T>(-v) : v;
    case Un::sign: return static_cast<T>((v > T(0)) - (v < T(0)));
    case Un::square: return static_cast<T>(v * v);
    case Un::relu: return v > T(0) ? v : T(0);
    default: return v;  // floor, round
  }
}

// ---- binary ----
template <class T>
__device__ __forceinline__ bool compare(Bin op, T x, T y) {
  switch (op) {
    case Bin::eq: return x == y;
    case Bin::ne: return x != y;
    case Bin::lt: return x < y;
    case Bin::le: return x <= y;
    case Bin::gt: return x > y;
    case Bin::ge: return x >= y;
    case Bin::logical_and: return x && y;
    case Bin::logical_or: return x || y;
    default: return false;
  }
}

template <class T>
__device__ __forceinline__ T arith(Bin op, T x, T y) {
  switch (op) {
    case Bin::add: return static_cast<T>(x + y);
    case Bin::sub: return static_cast<T>(x - y);
    case Bin::mul: return static_cast<T>(x * y);
    case Bin::div:
      if constexpr (std::is_floating_point_v<T>) {
        return x / y;
      } else {
        // Floor division like Python's //. The CPU backend throws on a zero
        // divisor; a kernel cannot throw, so the GPU writes 0 there.
        if (y == T(0)) return T(0);
        T q = static_cast<T>(x / y);
        if ((x % y != 0) && ((x < T(0)) != (y < T(0)))) --q;
        return q;
      }
    case Bin::pow:
      if constexpr (std::is_same_v<T, float>) return powf(x, y);
      else if constexpr (std::is_same_v<T, double>) return pow(x, y);
      else return ::kiln::backend::int_pow(x, y);
    case Bin::maximum: return (x >= y || x != x) ? x : y;
    case Bin::minimum: return (x <= y || x != x) ? x : y;
    case Bin::relu_grad: return x > T(0) ? y : T(0);  // a = forward input, b = dy
    case Bin::atan2:
      if constexpr (std::is_same_v<T, float>) return atan2f(x, y);
      else if constexpr (std::is_same_v<T, double>) return atan2(x, y);
      else return T(0);  // the op takes floating dtypes only
    case Bin::floor_mod:
      // The remainder takes the divisor's sign (Python's %); an integer zero divisor gives 0 (kernels cannot throw).
      if constexpr (std::is_floating_point_v<T>) {
        T r = fmod(x, y);
        if (r != T(0) && ((r < T(0)) != (y < T(0)))) r += y;
        return r;
      } else {
        if (y == T(0)) return T(0);
        T r = static_cast<T>(x % y);
        if (r != T(0) && ((r < T(0)) != (y < T(0)))) r = static_cast<T>(r + y);
        return r;
      }
    default: return x;
  }
}

}  // namespace kiln::cuda::k

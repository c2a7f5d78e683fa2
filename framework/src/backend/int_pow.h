#pragma once
// Private, std-only: integer powers for the CPU backend and the CUDA kernels
// alike. Repeated squaring is exact, where a round trip through a double pow
// is not on every device, and it wraps on overflow as JAX's integers do
// (3 ** 40 in int32 is 689956897). A negative exponent truncates the true
// power towards zero: 1 and -1 keep their magnitude, everything else gives 0.
#include <type_traits>

#if defined(__CUDACC__)
#define KILN_INT_POW_HD __host__ __device__ __forceinline__
#else
#define KILN_INT_POW_HD inline
#endif

namespace kiln::backend {

template <class T>
KILN_INT_POW_HD T int_pow(T x, T y) {
  if constexpr (std::is_same_v<T, bool>) {
    return x || !y;
  } else {
    if constexpr (std::is_signed_v<T>) {
      if (y < 0) return x == T(1) ? T(1) : x == T(-1) ? ((y & 1) ? T(-1) : T(1)) : T(0);
    }
    // Unsigned arithmetic wraps without the undefined behaviour of a signed overflow.
    using U = std::make_unsigned_t<T>;
    U base = static_cast<U>(x), r = 1;
    for (U e = static_cast<U>(y); e != 0; e = static_cast<U>(e >> 1)) {
      if (e & 1) r = static_cast<U>(r * base);
      base = static_cast<U>(base * base);
    }
    return static_cast<T>(r);
  }
}

}  // namespace kiln::backend

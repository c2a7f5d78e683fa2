#pragma once
// Integer +, - and * wrap around (two's complement), as TensorFlow's do. C++
// defines wrap-around only for unsigned types, so integers are computed in
// the unsigned type (unsigned int for those narrower than int, which C++
// would otherwise promote to a signed int); floating point is unchanged.
#include <type_traits>

namespace kiln::cpu {

template <class T>
using WrapType = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

template <class T>
inline T wrap_add(T x, T y) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<WrapType<T>>(x) + static_cast<WrapType<T>>(y));
  else
    return x + y;
}

template <class T>
inline T wrap_sub(T x, T y) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<WrapType<T>>(x) - static_cast<WrapType<T>>(y));
  else
    return x - y;
}

template <class T>
inline T wrap_mul(T x, T y) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<WrapType<T>>(x) * static_cast<WrapType<T>>(y));
  else
    return x * y;
}

}  // namespace kiln::cpu

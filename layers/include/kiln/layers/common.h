#pragma once
// Small argument types shared by the built-in layers.
//   L::Conv2D(32, 3)            // kernel_size (3, 3)
//   L::Conv2D(32, {3, 5}, {.strides = 2})
#include <array>
#include <string>
#include <type_traits>

namespace kiln::layers {

/// An int pair given as one int (both the same) or two: Keras's `3` or `(3, 5)`.
/// A default-constructed Size2 is (0, 0), meaning "not given" (Keras's None).
struct Size2 {
  int first = 0;  ///< The first value (height, or before).
  int second = 0;  ///< The second value (width, or after).
  /// (0, 0): not given.
  Size2() = default;
  Size2(int v) : first(v), second(v) {}  ///< Both values `v`.
  Size2(int a, int b) : first(a), second(b) {}  ///< The pair (a, b).
  bool given() const { return first > 0 && second > 0; }  ///< Whether both values are positive (given).
  std::array<int, 2> array() const { return {first, second}; }  ///< {first, second}.
  bool operator==(const Size2&) const = default;  ///< Same values.
};

/// A one-axis size (Conv1D's kernel_size and strides): an int, which Keras
/// writes in a config as a one-element list.
struct Size1 {
  int value = 0;  ///< The size.
  /// 0: not given.
  Size1() = default;
  Size1(int v) : value(v) {}  ///< The size `v`.
  operator int() const { return value; }  ///< The size as an int.
};

/// The per-axis size argument (strides, pool_size, ...) of a rank-N layer:
/// a Size1 for 1D layers, a Size2 for 2D ones.
template <int N>
using SpatialSize = std::conditional_t<N == 1, Size1, Size2>;

}  // namespace kiln::layers

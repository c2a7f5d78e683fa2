#pragma once
// keras.ops's tensor construction: ranges, spaced sequences, filled tensors and
// coordinate grids (zeros, ones, fill, eye, range and linspace are in kiln/core/tensor.h).
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "kiln/core/tensor.h"

namespace kiln {

/// keras.ops.arange with an explicit dtype: [start, stop) by step; with no stop, [0, start).
Tensor arange(double start, std::optional<double> stop, double step, DType dtype);
/// keras.ops.arange(start, stop, step) with Keras's dtype rule: integer arguments give
/// int32, any floating-point argument float32.
template <class A, class B, class C = int>
  requires std::is_arithmetic_v<A> && std::is_arithmetic_v<B> && std::is_arithmetic_v<C>
Tensor arange(A start, B stop, C step = 1) {
  constexpr bool integral = std::is_integral_v<A> && std::is_integral_v<B> && std::is_integral_v<C>;
  return arange(static_cast<double>(start), static_cast<double>(stop), static_cast<double>(step),
                integral ? DType::int32 : DType::float32);
}
/// keras.ops.arange(stop): [0, stop), int32 for an integer stop, float32 otherwise.
template <class A>
  requires std::is_arithmetic_v<A>
Tensor arange(A stop) {
  return arange(static_cast<double>(stop), std::nullopt, 1.0, std::is_integral_v<A> ? DType::int32 : DType::float32);
}
/// keras.ops.linspace: num evenly spaced values from start to stop, stop included when `endpoint`.
Tensor linspace(double start, double stop, int64_t num, bool endpoint, DType dtype = DType::float32);
/// keras.ops.logspace: base ** linspace(start, stop, num, endpoint).
Tensor logspace(double start, double stop, int64_t num = 50, bool endpoint = true, double base = 10,
                DType dtype = DType::float32);
/// keras.ops.geomspace: num values from start to stop spaced evenly on a log scale (start and stop
/// non-zero and of one sign).
Tensor geomspace(double start, double stop, int64_t num = 50, bool endpoint = true, DType dtype = DType::float32);
/// keras.ops.full_like: a tensor of x's shape filled with fill_value, in `dtype` (x's when none).
Tensor full_like(const Tensor& x, double fill_value, std::optional<DType> dtype = std::nullopt);
/// keras.ops.empty_like: a tensor of x's shape in `dtype` (x's when none); its values are zeros.
Tensor empty_like(const Tensor& x, std::optional<DType> dtype = std::nullopt);
/// keras.ops.meshgrid: coordinate grids of 1-D tensors; indexing "xy" (Cartesian: the first
/// two output axes swapped) or "ij" (matrix).
std::vector<Tensor> meshgrid(const std::vector<Tensor>& xs, const std::string& indexing = "xy");

}  // namespace kiln

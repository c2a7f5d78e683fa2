#pragma once
// Cumulative ops along one axis, named as in keras.ops: cumsum, cumprod,
// nancumsum, nancumprod, diff and trapezoid.
//   kiln::cumsum(x)        // over the flattened values
//   kiln::cumprod(x, 1)    // along axis 1
#include <optional>

#include "kiln/core/tensor.h"

namespace kiln {

/// keras.ops.cumsum(x, axis=None, dtype=None): running sums along `axis`, or over
/// the flattened values when no axis is given. `dtype` casts x first. bool and
/// uint8 give int32, other dtypes keep theirs (as Keras's JAX backend).
Tensor cumsum(const Tensor& x, std::optional<int> axis = std::nullopt, std::optional<DType> dtype = std::nullopt);
/// keras.ops.cumprod: running products, with cumsum's axis and dtype rules. Its
/// gradient is exact where x holds zeros.
Tensor cumprod(const Tensor& x, std::optional<int> axis = std::nullopt, std::optional<DType> dtype = std::nullopt);
/// keras.ops.nancumsum: cumsum with NaN taken as zero.
Tensor nancumsum(const Tensor& x, std::optional<int> axis = std::nullopt, std::optional<DType> dtype = std::nullopt);
/// keras.ops.nancumprod: cumprod with NaN taken as one.
Tensor nancumprod(const Tensor& x, std::optional<int> axis = std::nullopt, std::optional<DType> dtype = std::nullopt);
/// keras.ops.diff(a, n=1, axis=-1): the n-th discrete difference a[i + 1] - a[i]
/// along `axis` (not_equal for bool); the axis shrinks by n (to 0 at least).
Tensor diff(const Tensor& a, int n = 1, int axis = -1);
/// keras.ops.trapezoid(y, x=None, dx=1.0, axis=-1): the trapezoid-rule integral
/// of y along `axis`, with sample points x (1-D, or y's shape) or spacing dx.
/// Integers give float32.
Tensor trapezoid(const Tensor& y, const std::optional<Tensor>& x = std::nullopt, double dx = 1.0, int axis = -1);

}  // namespace kiln

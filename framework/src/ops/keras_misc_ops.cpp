// keras.ops.multi_hot, psnr, sparsemax and polar.
#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/creation_ops.h"
#include "kiln/ops/cumulative_ops.h"
#include "kiln/ops/elementwise_math.h"
#include "kiln/ops/keras_nn_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "kiln/ops/shape_ops.h"
#include "kiln/ops/sort_ops.h"
#include "ops/op_util.h"

namespace kiln {

Tensor multi_hot(const Tensor& inputs, int64_t num_classes, int axis, DType dtype) {
  if (num_classes <= 0)
    throw ValueError("multi_hot: `num_classes` must be positive, but received " + std::to_string(num_classes));
  if (is_floating(inputs.dtype()) || inputs.dtype() == DType::bool_)
    throw TypeError("multi_hot: expected integer class ids, but received " + dtype_name(inputs.dtype()) +
                    " inputs with shape " + inputs.shape().to_string());
  const Tensor ids = inputs.dtype() == DType::int32 ? inputs : cast(inputs, DType::int32);
  // One-hot by comparison: ids outside [0, num_classes) set nothing (as jax.nn.one_hot).
  Tensor hot = equal(expand_dims(ids, -1), arange(0.0, static_cast<double>(num_classes), 1.0, DType::int32).to(ids.device()));
  const int a = ops::normalize_axis("multi_hot", axis, ids.rank() + 1);
  if (a != ids.rank()) hot = moveaxis(hot, {-1}, {a});
  return cast(any(hot, ids.rank() > 1 ? 1 : 0), dtype);
}

Tensor psnr(const Tensor& x1, const Tensor& x2, double max_val) {
  if (!(x1.shape() == x2.shape()))
    throw ValueError("psnr: Input shapes " + x1.shape().to_string() + " and " + x2.shape().to_string() +
                     " must match for PSNR calculation.");
  const DType d = is_floating(x2.dtype()) ? x2.dtype() : DType::float32;
  const Tensor a = x1.dtype() == d ? x1 : cast(x1, d), b = x2.dtype() == d ? x2 : cast(x2, d);
  const Tensor mse = mean(square(a - b));
  return 20.0 * log10(Tensor(max_val, d).to(b.device())) - 10.0 * log10(mse);
}

Tensor sparsemax(const Tensor& x, int axis) {
  if (!is_floating(x.dtype()))
    throw TypeError("sparsemax: expected float32 or float64 logits, but received " + dtype_name(x.dtype()) +
                    " with shape " + x.shape().to_string());
  const int a = ops::normalize_axis("sparsemax", axis, x.rank());
  const Tensor sorted = -sort(-x, a);  // descending
  const Tensor cums = cumsum(sorted, a);
  Shape r_shape(std::vector<int64_t>(static_cast<std::size_t>(x.rank()), 1));
  r_shape[a] = x.shape()[a];
  const Tensor r = reshape(arange(1.0, static_cast<double>(x.shape()[a] + 1), 1.0, x.dtype()), r_shape).to(x.device());
  const Tensor support = greater(sorted - (cums - 1.0) / r, zeros({}, x.dtype()).to(x.device()));
  const Tensor k = sum(cast(support, x.dtype()), a, true);
  // Keras's threshold: the sum of the supported cumulative sums, less one, over k.
  const Tensor tau = (sum(where(support, cums, zeros_like(cums)), a, true) - 1.0) / k;
  return maximum(x - tau, zeros({}, x.dtype()).to(x.device()));
}

std::pair<Tensor, Tensor> polar(const Tensor& abs_, const Tensor& angle) {
  if (!is_floating(abs_.dtype()) || !is_floating(angle.dtype()))
    throw TypeError("polar: expected float `abs_` and `angle`, but received " + dtype_name(abs_.dtype()) + " " +
                    abs_.shape().to_string() + " and " + dtype_name(angle.dtype()) + " " + angle.shape().to_string());
  return {abs_ * cos(angle), abs_ * sin(angle)};
}

}  // namespace kiln

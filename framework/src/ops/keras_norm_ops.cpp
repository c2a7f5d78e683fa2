// keras.ops.batch_normalization, layer_normalization and rms_normalization, in the
// order of operations Keras's JAX backend uses (so float32 rounding agrees):
// inv = rsqrt(var + eps)·scale, then x·inv + (offset − mean·inv).
#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/keras_nn_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "ops/backend_epsilon.h"
#include "ops/op_util.h"

namespace kiln {

namespace {

using ops::kBackendEpsilon;

DType compute_dtype(const Tensor& x) { return x.dtype() == DType::float64 ? DType::float64 : DType::float32; }

Tensor as(const Tensor& t, DType d) { return t.dtype() == d ? t : cast(t, d); }

// A per-channel vector (C,) reshaped to broadcast along `axis` of a rank-r tensor.
Tensor along_axis(const char* what, const Tensor& v, const Tensor& x, int axis, DType d) {
  if (v.rank() != 1 || v.shape()[0] != x.shape()[axis])
    throw ShapeError(std::string("batch_normalization: `") + what + "` must have shape (" +
                     std::to_string(x.shape()[axis]) + ",) to match axis " + std::to_string(axis) +
                     " of x with shape " + x.shape().to_string() + ", but received shape " + v.shape().to_string());
  Shape s(std::vector<int64_t>(static_cast<std::size_t>(x.rank()), 1));
  s[axis] = v.shape()[0];
  return reshape(as(v, d), s);
}

}  // namespace

Tensor batch_normalization(const Tensor& x, const Tensor& mean, const Tensor& variance, int axis, const Tensor& offset,
                           const Tensor& scale, double epsilon) {
  const int a = ops::normalize_axis("batch_normalization", axis, x.rank());
  const DType d = is_floating(x.dtype()) ? x.dtype() : DType::float32;
  const Tensor xs = as(x, d);
  Tensor inv = rsqrt(along_axis("variance", variance, xs, a, d) + epsilon);
  if (scale.defined()) inv = inv * along_axis("scale", scale, xs, a, d);
  Tensor res = -along_axis("mean", mean, xs, a, d) * inv;
  if (offset.defined()) res = res + along_axis("offset", offset, xs, a, d);
  return xs * inv + res;
}

Tensor layer_normalization(const Tensor& x, const Tensor& gamma, const Tensor& beta, const std::vector<int>& axis,
                           std::optional<double> epsilon) {
  const double eps = epsilon.value_or(kBackendEpsilon);
  const DType d = compute_dtype(x);
  const Tensor xs = as(x, d);
  const std::vector<int> axes = ops::resolve_axes("layer_normalization", axis, xs.rank());
  Shape bshape(std::vector<int64_t>(static_cast<std::size_t>(xs.rank()), 1));
  for (int a : axes) bshape[a] = xs.shape()[a];
  const bool last_only = axes.size() == 1 && axes[0] == xs.rank() - 1;
  auto broadcast = [&](const Tensor& v, const char* what) {
    Tensor t = as(v, d);
    if (t.size() != bshape.num_elements())
      throw ShapeError(std::string("layer_normalization: `") + what + "` must hold one value per normalized element " +
                       bshape.to_string() + " of x with shape " + xs.shape().to_string() + ", but received shape " +
                       v.shape().to_string());
    return t.rank() != xs.rank() && !last_only ? reshape(t, bshape) : t;
  };
  const Tensor mu = mean(xs, Axes(axes), true);
  const Tensor var_ = var(xs, Axes(axes), true);
  Tensor inv = rsqrt(var_ + eps);
  if (gamma.defined()) inv = inv * broadcast(gamma, "gamma");
  Tensor res = -mu * inv;
  if (beta.defined()) res = res + broadcast(beta, "beta");
  return as(xs * inv + res, x.dtype());
}

Tensor rms_normalization(const Tensor& x, const Tensor& scale, const std::vector<int>& axis,
                         std::optional<double> epsilon) {
  const double eps = epsilon.value_or(kBackendEpsilon);
  const DType d = compute_dtype(x);
  Tensor xs = as(x, d);
  if (xs.rank() == 0) xs = expand_dims(xs, 0);
  const std::vector<int> axes = ops::resolve_axes("rms_normalization", axis, xs.rank());
  Tensor y = xs * rsqrt(mean(square(xs), Axes(axes), true) + eps);
  if (scale.defined()) y = y * as(scale, d);
  return as(y, x.dtype());
}

}  // namespace kiln

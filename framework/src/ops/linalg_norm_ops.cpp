// keras.ops.norm (jnp.linalg.norm's vector and matrix norms) and keras.ops.cdist,
// composed of differentiable reductions (and the SVD for the "nuc", 2 and −2 matrix
// norms), so their gradients are those of the formulas, as in JAX.
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "core/check.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/linalg_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "kiln/ops/shape_ops.h"
#include "ops/elementwise_promotion.h"
#include "ops/linalg_util.h"
#include "ops/op_util.h"

namespace kiln {

using namespace ops;

namespace {

std::string ord_text(const NormOrd& ord) {
  if (!ord.name.empty()) return ord.name;
  if (!ord.value) return "None";
  std::ostringstream os;
  os << *ord.value;
  return os.str();
}

bool is(const NormOrd& ord, double v) { return ord.name.empty() && ord.value && *ord.value == v; }

Tensor vector_norm(const Tensor& x, const NormOrd& ord, int axis, bool keepdims) {
  KILN_CHECK(ord.name.empty(), ValueError, "norm: Invalid order '" << ord.name << "' for vector norm.");
  const Axes axes(axis);
  if (!ord.value || is(ord, 2)) return sqrt(sum(x * x, axes, keepdims));
  const double p = *ord.value;
  if (p == INFINITY) return max(abs(x), axes, keepdims);
  if (p == -INFINITY) return min(abs(x), axes, keepdims);
  if (p == 0) return sum(cast(x != 0.0, x.dtype()), axes, keepdims);
  if (p == 1) return sum(abs(x), axes, keepdims);
  return pow(sum(pow(abs(x), p), axes, keepdims), 1.0 / p);
}

/// The singular values of the planes (row, col) of x, as the last axis.
Tensor plane_singular_values(const Tensor& x, int row, int col) {
  return svd(moveaxis(x, {row, col}, {-2, -1}), true, false).s;
}

Tensor matrix_norm(const Tensor& x, const NormOrd& ord, int row, int col, bool keepdims) {
  if ((!ord.value && ord.name.empty()) || ord.name == "fro" || ord.name == "f")
    return sqrt(sum(x * x, Axes({row, col}), keepdims));
  if (ord.name == "nuc" || is(ord, 2) || is(ord, -2)) {
    Tensor s = plane_singular_values(x, row, col);
    Tensor y = is(ord, 2) ? max(s, -1) : is(ord, -2) ? min(s, -1) : sum(s, -1);
    if (keepdims) y = expand_dims(expand_dims(y, std::min(row, col)), std::max(row, col));
    return y;
  }
  KILN_CHECK(is(ord, 1) || is(ord, -1) || is(ord, INFINITY) || is(ord, -INFINITY), ValueError,
             "norm: Invalid order '" << ord_text(ord) << "' for matrix norm.");
  // 1 and −1 sum down the columns (over rows) first; ±inf sum along the rows.
  int first = row, second = col;
  if (is(ord, INFINITY) || is(ord, -INFINITY)) std::swap(first, second);
  if (!keepdims && second > first) --second;
  Tensor sums = sum(abs(x), Axes(first), keepdims);
  return is(ord, 1) || is(ord, INFINITY) ? max(sums, Axes(second), keepdims) : min(sums, Axes(second), keepdims);
}

}  // namespace

Tensor norm(const Tensor& x, const NormOrd& ord, std::optional<std::vector<int>> axis, bool keepdims) {
  check_concrete("norm", x);
  KILN_CHECK(ord.name.empty() || ord.name == "fro" || ord.name == "nuc", ValueError,
             "norm: Invalid `ord` argument. Expected one of {'fro', 'nuc'} when using string. Received: ord="
                 << ord.name);
  // Keras casts to result_type(x.dtype, float) first, which its dtype rules make float32 for
  // every Kiln dtype, float64 included (a Python float there is a weak float32).
  Tensor xf = x.dtype() == DType::float32 ? x : cast(x, DType::float32);
  const int64_t rank = xf.rank();
  std::vector<int> axes;
  if (!axis) {
    if (!ord.value && ord.name.empty()) return sqrt(sum(xf * xf, Axes(), keepdims));
    for (int i = 0; i < rank; ++i) axes.push_back(i);
  } else {
    for (int a : *axis) axes.push_back(normalize_axis("norm", a, rank));
  }
  if (axes.size() == 1) return vector_norm(xf, ord, axes[0], keepdims);
  KILN_CHECK(axes.size() == 2 && axes[0] != axes[1], ValueError,
             "norm: Improper number of axes for norm: pass one axis to compute a vector norm, or two axes to "
             "compute a matrix norm. Received: x.shape="
                 << x.shape().to_string() << ", " << axes.size() << " axes");
  return matrix_norm(xf, ord, axes[0], axes[1], keepdims);
}

Tensor cdist(const Tensor& x, const Tensor& y) {
  check_concrete("cdist", x);
  check_concrete("cdist", y);
  KILN_CHECK(x.rank() >= 2 && y.rank() >= 2, ValueError,
             "cdist: inputs must have rank >= 2. Received shapes: x.shape=" << x.shape().to_string()
                                                                             << ", y.shape=" << y.shape().to_string());
  KILN_CHECK(x.shape()[-1] == y.shape()[-1], ValueError,
             "cdist: The last dimension of inputs to `cdist` must match. Received shapes: x.shape="
                 << x.shape().to_string() << ", y.shape=" << y.shape().to_string());
  common_device("cdist", {x, y});
  auto [fx, fy] = keras_promote_pair_floating(x, y);
  Tensor diff = expand_dims(fx, -2) - expand_dims(fy, -3);
  return sqrt(sum(diff * diff, -1));
}

}  // namespace kiln

// keras.ops.normalize, composed of differentiable ops as Keras composes it.
#include <string>

#include "core/op_log.h"
#include "kiln/core/error.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/nn_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "ops/half_compute.h"

namespace kiln {

Tensor normalize(const Tensor& x, int axis, int order, std::optional<double> epsilon) {
  KILN_LOG_OP(normalize, x, axis, order, epsilon);
  KILN_HALF_IN_FLOAT32(normalize, x, axis, order, epsilon);
  if (order < 1) throw ValueError("normalize: argument `order` must be an int >= 1. Received: order=" +
                                  std::to_string(order));
  const double eps = epsilon.value_or(1e-7);
  if (order == 2) {
    Tensor inv_norm = rsqrt(sum(square(x), {axis}, true));
    return x * minimum(inv_norm, scalar_like(1.0 / eps, inv_norm));
  }
  Tensor a = abs(x);
  Tensor norm = order == 1 ? sum(a, {axis}, true) : pow(sum(pow(a, order), {axis}, true), 1.0 / order);
  return x / maximum(norm, scalar_like(eps, norm));
}

}  // namespace kiln

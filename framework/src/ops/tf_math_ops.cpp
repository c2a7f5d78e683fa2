// The TensorFlow-named element-wise ops of math_ops.h: floor_mod (and %), arctan2 and
// add_n. Each op: check, compute, record its rule.
#include <string>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "core/check.h"
#include "ops/op_util.h"
#include "core/op_log.h"
#include "ops/half_compute.h"

namespace kiln {

using namespace ops;

Tensor floor_mod(const Tensor& a, const Tensor& b) {
  KILN_LOG_OP(floor_mod, a, b);
  KILN_HALF_IN_FLOAT32(floor_mod, a, b);
  check_concrete("floor_mod", a);
  check_concrete("floor_mod", b);
  common_device("floor_mod", {a, b});
  check_binary_dtype("floor_mod", backend::BinaryOp::floor_mod, a, b);
  Tensor y = Tensor::empty(broadcast_shapes(a.shape(), b.shape(), "floor_mod"), a.dtype(), a.device());
  be(a).binary(backend::BinaryOp::floor_mod, a, b, y);
  if (autodiff::active())
    autodiff::record("FloorMod", {a, b}, {y}, [a, b](const Grads& dy, const Needs& n) {
      // a mod b = a - floor(a / b) * b, with floor(a / b) piecewise constant:
      // d/da = 1, d/db = -floor(a / b) (TF's _FloorModGrad).
      return Grads{dy[0], n[1] ? multiply(dy[0], neg(floor_divide(a, b))) : Tensor()};
    });
  return y;
}

Tensor arctan2(const Tensor& y, const Tensor& x) {
  KILN_LOG_OP(arctan2, y, x);
  KILN_HALF_IN_FLOAT32(arctan2, y, x);
  check_concrete("arctan2", y);
  check_concrete("arctan2", x);
  common_device("arctan2", {y, x});
  check_same_dtype("arctan2", y, x);
  KILN_CHECK(is_floating(y.dtype()), TypeError,
             "arctan2: expected float32 or float64 tensors, but received " << describe(y) << " and " << describe(x));
  Tensor out = Tensor::empty(broadcast_shapes(y.shape(), x.shape(), "arctan2"), y.dtype(), y.device());
  be(y).binary(backend::BinaryOp::atan2, y, x, out);
  if (autodiff::active())
    autodiff::record("Atan2", {y, x}, {out}, [y, x](const Grads& dy, const Needs& n) {
      // d/dy = x / (x² + y²), d/dx = −y / (x² + y²) (TF's _Atan2Grad).
      Tensor scale = dy[0] / (square(x) + square(y));
      return Grads{n[0] ? multiply(scale, x) : Tensor(), n[1] ? multiply(scale, neg(y)) : Tensor()};
    });
  return out;
}

Tensor operator%(const Tensor& a, const Tensor& b) { return floor_mod(a, b); }
Tensor operator%(const Tensor& a, double b) { return floor_mod(a, scalar_like(b, a)); }
Tensor operator%(double a, const Tensor& b) { return floor_mod(scalar_like(a, b), b); }

Tensor add_n(const std::vector<Tensor>& inputs) {
  KILN_LOG_OP(add_n, inputs);
  KILN_HALF_IN_FLOAT32(add_n, inputs);
  if (inputs.empty())
    throw ValueError(
        "add_n: inputs must be a list of at least one tensor with the same dtype and shape, but received an empty "
        "list");
  const Tensor& first = inputs[0];
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    check_concrete("add_n", inputs[i]);
    if (inputs[i].dtype() != first.dtype())
      throw TypeError("add_n: inputs must have the same dtype. Input 0: " + dtype_name(first.dtype()) +
                      " != input " + std::to_string(i) + ": " + dtype_name(inputs[i].dtype()));
    // As TF's AddN kernel: no broadcasting, every shape must equal the first.
    if (!(inputs[i].shape() == first.shape()))
      throw ShapeError("add_n: inputs must have the same size and shape. Input 0: " + first.shape().to_string() +
                       " != input " + std::to_string(i) + ": " + inputs[i].shape().to_string());
  }
  common_device("add_n", inputs);
  if (inputs.size() == 1) return identity(first);
  Tensor y;
  {
    autodiff::Pause pause;  // one AddN entry below instead of a chain of Adds
    y = add(inputs[0], inputs[1]);
    for (std::size_t i = 2; i < inputs.size(); ++i) be(y).binary(backend::BinaryOp::add, y, inputs[i], y);
  }
  if (autodiff::active())
    autodiff::record("AddN", inputs, {y}, [count = inputs.size()](const Grads& dy, const Needs&) {
      return Grads(count, dy[0]);
    });
  return y;
}

}  // namespace kiln

// Element-wise maths (matmul is in matmul.cpp). Each op: check, compute, record its rule.
#include "kiln/ops/math_ops.h"

#include <cmath>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "core/check.h"
#include "core/op_log.h"
#include "ops/op_util.h"
#include "core/tensor_impl.h"
#include "ops/half_compute.h"

namespace kiln {

using backend::BinaryOp;
using backend::UnaryOp;
using namespace ops;

namespace {

Tensor unary_forward(UnaryOp op, const Tensor& x, const char* name) {
  check_concrete(name, x);
  check_unary_dtype(name, op, x);
  DType od = (op == UnaryOp::isnan || op == UnaryOp::isfinite || op == UnaryOp::logical_not) ? DType::bool_ : x.dtype();
  Tensor y = Tensor::empty(x.shape(), od, x.device());
  be(x).unary(op, x, y);
  return y;
}

bool is_comparison(BinaryOp op) {
  return op == BinaryOp::eq || op == BinaryOp::ne || op == BinaryOp::lt || op == BinaryOp::le || op == BinaryOp::gt ||
         op == BinaryOp::ge || op == BinaryOp::logical_and || op == BinaryOp::logical_or;
}

Tensor binary_forward(BinaryOp op, const Tensor& a, const Tensor& b, const char* name) {
  check_concrete(name, a);
  check_concrete(name, b);
  common_device(name, {a, b});
  check_binary_dtype(name, op, a, b);
  Shape s = broadcast_shapes(a.shape(), b.shape(), name);
  Tensor y = Tensor::empty(s, is_comparison(op) ? DType::bool_ : a.dtype(), a.device());
  be(a).binary(op, a, b, y);
  return y;
}

template <class Rule>
Tensor unary_op(UnaryOp op, const Tensor& x, const char* name, Rule rule) {
  Tensor y = unary_forward(op, x, name);
  if (autodiff::active())
    autodiff::record(name, {x}, {y}, [x, y, rule](const Grads& dy, const Needs&) { return Grads{rule(x, y, dy[0])}; });
  return y;
}

/// relu's backward, kept as an op so that it is differentiable in dy.
Tensor relu_backward(const Tensor& x, const Tensor& dy) {
  Tensor out = Tensor::empty(dy.shape(), dy.dtype(), dy.device());
  be(dy).binary(BinaryOp::relu_grad, x, dy, out);
  if (autodiff::active())
    autodiff::record("ReluGrad", {x, dy}, {out},
                     [x](const Grads& g, const Needs&) { return Grads{Tensor(), relu_backward(x, g[0])}; });
  return out;
}

// Strings compare on the host, byte for byte (tf.equal on tf.string).
Tensor string_equal(const Tensor& a, const Tensor& b, bool equal, const char* name) {
  check_concrete(name, a);
  check_concrete(name, b);
  check_same_dtype(name, a, b);
  const Shape s = broadcast_shapes(a.shape(), b.shape(), name);
  const Tensor x = broadcast_to(a, s), y = broadcast_to(b, s);
  Tensor out = Tensor::empty(s, DType::bool_);
  const std::string* p = x.data<std::string>();
  const std::string* q = y.data<std::string>();
  bool* o = out.data<bool>();
  for (int64_t i = 0; i < out.size(); ++i) o[i] = (p[i] == q[i]) == equal;
  return out;
}

}  // namespace

namespace ops {
Tensor relu_mask_grad(const Tensor& x, const Tensor& dy) { return relu_backward(x, dy); }
}  // namespace ops

Tensor add(const Tensor& a, const Tensor& b) {
  KILN_LOG_OP(add, a, b);
  KILN_HALF_IN_FLOAT32(add, a, b);
  Tensor y = binary_forward(BinaryOp::add, a, b, "add");
  if (autodiff::active()) autodiff::record("Add", {a, b}, {y}, [](const Grads& dy, const Needs&) { return Grads{dy[0], dy[0]}; });
  return y;
}
Tensor subtract(const Tensor& a, const Tensor& b) {
  KILN_LOG_OP(subtract, a, b);
  KILN_HALF_IN_FLOAT32(subtract, a, b);
  Tensor y = binary_forward(BinaryOp::sub, a, b, "subtract");
  if (autodiff::active())
    autodiff::record("Sub", {a, b}, {y}, [](const Grads& dy, const Needs& n) {
      return Grads{dy[0], n[1] ? neg(dy[0]) : Tensor()};
    });
  return y;
}
Tensor multiply(const Tensor& a, const Tensor& b) {
  KILN_LOG_OP(multiply, a, b);
  KILN_HALF_IN_FLOAT32(multiply, a, b);
  Tensor y = binary_forward(BinaryOp::mul, a, b, "multiply");
  if (autodiff::active())
    autodiff::record("Mul", {a, b}, {y}, [a, b](const Grads& dy, const Needs& n) {
      return Grads{n[0] ? multiply(dy[0], b) : Tensor(), n[1] ? multiply(dy[0], a) : Tensor()};
    });
  return y;
}
Tensor divide(const Tensor& a, const Tensor& b) {
  KILN_LOG_OP(divide, a, b);
  KILN_HALF_IN_FLOAT32(divide, a, b);
  if (!is_floating(a.dtype()) && !is_floating(b.dtype()) && a.dtype() == b.dtype())
    return divide(cast(a, DType::float32), cast(b, DType::float32));
  Tensor y = binary_forward(BinaryOp::div, a, b, "divide");
  if (autodiff::active())
    autodiff::record("RealDiv", {a, b}, {y}, [a, b](const Grads& dy, const Needs& n) {
      // d(a/b)/db = -a / b²
      return Grads{n[0] ? divide(dy[0], b) : Tensor(), n[1] ? neg(divide(multiply(dy[0], a), multiply(b, b))) : Tensor()};
    });
  return y;
}
Tensor floor_divide(const Tensor& a, const Tensor& b) {
  KILN_LOG_OP(floor_divide, a, b);
  KILN_HALF_IN_FLOAT32(floor_divide, a, b);
  if (is_floating(a.dtype()) || is_floating(b.dtype())) {
    autodiff::Pause pause;  // piecewise constant: no gradient
    return floor(divide(a, b));
  }
  if (a.dtype() == DType::bool_ || b.dtype() == DType::bool_)
    throw TypeError("floor_divide: expected numeric tensors, but received " + dtype_name(a.dtype()) + " and " +
                    dtype_name(b.dtype()));
  return binary_forward(BinaryOp::div, a, b, "floor_divide");  // the backend's integer division floors
}
Tensor pow(const Tensor& a, const Tensor& b) {
  KILN_LOG_OP(pow, a, b);
  KILN_HALF_IN_FLOAT32(pow, a, b);
  Tensor y = binary_forward(BinaryOp::pow, a, b, "pow");
  if (autodiff::active())
    autodiff::record("Pow", {a, b}, {y}, [a, b, y](const Grads& dy, const Needs& n) {
      Grads g(2);
      if (n[0]) g[0] = multiply(dy[0], multiply(b, pow(a, subtract(b, scalar_like(1, b)))));
      if (n[1]) {
        // d(a^b)/db = a^b log a, taken as 0 where a <= 0 (as TF does)
        Tensor pos = greater(a, zeros_like(a));
        Tensor safe_a = where(pos, a, ones_like(a));
        g[1] = multiply(dy[0], where(pos, multiply(y, log(safe_a)), zeros_like(y)));
      }
      return g;
    });
  return y;
}
Tensor pow(const Tensor& a, double e) {
  KILN_LOG_OP(pow, a, e);
  KILN_HALF_IN_FLOAT32(pow, a, e);
  return pow(a, scalar_like(e, a));
}
Tensor maximum(const Tensor& a, const Tensor& b) {
  KILN_LOG_OP(maximum, a, b);
  KILN_HALF_IN_FLOAT32(maximum, a, b);
  Tensor y = binary_forward(BinaryOp::maximum, a, b, "maximum");
  if (autodiff::active())
    autodiff::record("Maximum", {a, b}, {y}, [a, b](const Grads& dy, const Needs&) {
      Tensor m = greater_equal(a, b);
      Tensor z = zeros_like(dy[0]);
      return Grads{where(m, dy[0], z), where(m, z, dy[0])};
    });
  return y;
}
Tensor minimum(const Tensor& a, const Tensor& b) {
  KILN_LOG_OP(minimum, a, b);
  KILN_HALF_IN_FLOAT32(minimum, a, b);
  Tensor y = binary_forward(BinaryOp::minimum, a, b, "minimum");
  if (autodiff::active())
    autodiff::record("Minimum", {a, b}, {y}, [a, b](const Grads& dy, const Needs&) {
      Tensor m = less_equal(a, b);
      Tensor z = zeros_like(dy[0]);
      return Grads{where(m, dy[0], z), where(m, z, dy[0])};
    });
  return y;
}
Tensor clip(const Tensor& x, double lo, double hi) {
  KILN_LOG_OP(clip, x, lo, hi);
  KILN_HALF_IN_FLOAT32(clip, x, lo, hi);
  if (lo > hi) throw ValueError("clip: lower bound " + std::to_string(lo) + " is above upper bound " + std::to_string(hi));
  return minimum(maximum(x, scalar_like(lo, x)), scalar_like(hi, x));
}

Tensor neg(const Tensor& x) {
  KILN_LOG_OP(neg, x);
  KILN_HALF_IN_FLOAT32(neg, x);
  Tensor y = unary_forward(UnaryOp::neg, x, "neg");
  if (autodiff::active()) autodiff::record("Neg", {x}, {y}, [](const Grads& dy, const Needs&) { return Grads{neg(dy[0])}; });
  return y;
}
Tensor abs(const Tensor& x) {
  KILN_LOG_OP(abs, x);
  KILN_HALF_IN_FLOAT32(abs, x);
  Tensor y = unary_forward(UnaryOp::abs, x, "abs");
  if (autodiff::active())
    autodiff::record("Abs", {x}, {y}, [x](const Grads& dy, const Needs&) { return Grads{multiply(dy[0], sign(x))}; });
  return y;
}
Tensor sign(const Tensor& x) {
  KILN_LOG_OP(sign, x);
  KILN_HALF_IN_FLOAT32(sign, x);
  Tensor y = unary_forward(UnaryOp::sign, x, "sign");
  if (autodiff::active()) autodiff::record("Sign", {x}, {y}, [](const Grads& dy, const Needs&) { return Grads{zeros_like(dy[0])}; });
  return y;
}
Tensor exp(const Tensor& x) {
  KILN_LOG_OP(exp, x);
  KILN_HALF_IN_FLOAT32(exp, x);
  return unary_op(UnaryOp::exp, x, "exp", [](const Tensor&, const Tensor& y, const Tensor& dy) { return multiply(dy, y); });
}
Tensor log(const Tensor& x) {
  KILN_LOG_OP(log, x);
  KILN_HALF_IN_FLOAT32(log, x);
  return unary_op(UnaryOp::log, x, "log", [](const Tensor& x, const Tensor&, const Tensor& dy) { return divide(dy, x); });
}
Tensor log1p(const Tensor& x) {
  KILN_LOG_OP(log1p, x);
  KILN_HALF_IN_FLOAT32(log1p, x);
  return unary_op(UnaryOp::log1p, x, "log1p",
                  [](const Tensor& x, const Tensor&, const Tensor& dy) { return divide(dy, add(x, scalar_like(1, x))); });
}
Tensor expm1(const Tensor& x) {
  KILN_LOG_OP(expm1, x);
  KILN_HALF_IN_FLOAT32(expm1, x);
  return unary_op(UnaryOp::expm1, x, "expm1",
                  [](const Tensor&, const Tensor& y, const Tensor& dy) { return multiply(dy, add(y, scalar_like(1, y))); });
}
Tensor sqrt(const Tensor& x) {
  KILN_LOG_OP(sqrt, x);
  KILN_HALF_IN_FLOAT32(sqrt, x);
  return unary_op(UnaryOp::sqrt, x, "sqrt",
                  [](const Tensor&, const Tensor& y, const Tensor& dy) { return divide(multiply(dy, scalar_like(0.5, y)), y); });
}
Tensor rsqrt(const Tensor& x) {
  KILN_LOG_OP(rsqrt, x);
  KILN_HALF_IN_FLOAT32(rsqrt, x);
  return unary_op(UnaryOp::rsqrt, x, "rsqrt", [](const Tensor& x, const Tensor& y, const Tensor& dy) {
    return multiply(dy, multiply(scalar_like(-0.5, y), divide(y, x)));
  });
}
Tensor square(const Tensor& x) {
  KILN_LOG_OP(square, x);
  KILN_HALF_IN_FLOAT32(square, x);
  Tensor y = unary_forward(UnaryOp::square, x, "square");
  if (autodiff::active())
    autodiff::record("Square", {x}, {y}, [x](const Grads& dy, const Needs&) {
      return Grads{multiply(dy[0], multiply(x, scalar_like(2, x)))};
    });
  return y;
}
Tensor sin(const Tensor& x) {
  KILN_LOG_OP(sin, x);
  KILN_HALF_IN_FLOAT32(sin, x);
  return unary_op(UnaryOp::sin, x, "sin", [](const Tensor& x, const Tensor&, const Tensor& dy) { return multiply(dy, cos(x)); });
}
Tensor cos(const Tensor& x) {
  KILN_LOG_OP(cos, x);
  KILN_HALF_IN_FLOAT32(cos, x);
  return unary_op(UnaryOp::cos, x, "cos", [](const Tensor& x, const Tensor&, const Tensor& dy) { return neg(multiply(dy, sin(x))); });
}
Tensor tanh(const Tensor& x) {
  KILN_LOG_OP(tanh, x);
  KILN_HALF_IN_FLOAT32(tanh, x);
  return unary_op(UnaryOp::tanh, x, "tanh", [](const Tensor&, const Tensor& y, const Tensor& dy) {
    return multiply(dy, subtract(scalar_like(1, y), square(y)));
  });
}
Tensor erf(const Tensor& x) {
  KILN_LOG_OP(erf, x);
  KILN_HALF_IN_FLOAT32(erf, x);
  return unary_op(UnaryOp::erf, x, "erf", [](const Tensor& x, const Tensor&, const Tensor& dy) {
    return multiply(dy, multiply(scalar_like(2.0 / std::sqrt(M_PI), x), exp(neg(square(x)))));
  });
}
Tensor sigmoid(const Tensor& x) {
  KILN_LOG_OP(sigmoid, x);
  KILN_HALF_IN_FLOAT32(sigmoid, x);
  return unary_op(UnaryOp::sigmoid, x, "sigmoid", [](const Tensor&, const Tensor& y, const Tensor& dy) {
    return multiply(dy, multiply(y, subtract(scalar_like(1, y), y)));
  });
}
Tensor relu(const Tensor& x) {
  KILN_LOG_OP(relu, x);
  KILN_HALF_IN_FLOAT32(relu, x);
  Tensor y = unary_forward(UnaryOp::relu, x, "relu");
  // The gradient's mask reads the output (y > 0 exactly where x > 0, NaN
  // included), not the input: the input (often a BatchNormalization's output)
  // is then freed as soon as the next op has read it, instead of living until
  // the backward pass.
  if (autodiff::active())
    autodiff::record("Relu", {x}, {y}, [y](const Grads& dy, const Needs&) { return Grads{relu_backward(y, dy[0])}; });
  return y;
}
Tensor softplus(const Tensor& x) {
  KILN_LOG_OP(softplus, x);
  KILN_HALF_IN_FLOAT32(softplus, x);
  return unary_op(UnaryOp::softplus, x, "softplus",
                  [](const Tensor& x, const Tensor&, const Tensor& dy) { return multiply(dy, sigmoid(x)); });
}
Tensor floor(const Tensor& x) {
  KILN_LOG_OP(floor, x);
  KILN_HALF_IN_FLOAT32(floor, x);
  return unary_op(UnaryOp::floor, x, "floor", [](const Tensor&, const Tensor&, const Tensor& dy) { return zeros_like(dy); });
}
Tensor round(const Tensor& x) {
  KILN_LOG_OP(round, x);
  KILN_HALF_IN_FLOAT32(round, x);
  return unary_op(UnaryOp::round, x, "round", [](const Tensor&, const Tensor&, const Tensor& dy) { return zeros_like(dy); });
}
Tensor isnan(const Tensor& x) {
  KILN_LOG_OP(isnan, x);
  KILN_HALF_IN_FLOAT32(isnan, x);
  return unary_forward(UnaryOp::isnan, x, "isnan");
}
Tensor isfinite(const Tensor& x) {
  KILN_LOG_OP(isfinite, x);
  KILN_HALF_IN_FLOAT32(isfinite, x);
  return unary_forward(UnaryOp::isfinite, x, "isfinite");
}

Tensor equal(const Tensor& a, const Tensor& b) {
  KILN_LOG_OP(equal, a, b);
  KILN_HALF_IN_FLOAT32(equal, a, b);
  if (is_string(a.dtype()) || is_string(b.dtype())) return string_equal(a, b, true, "equal");
  return binary_forward(BinaryOp::eq, a, b, "equal");
}
Tensor not_equal(const Tensor& a, const Tensor& b) {
  KILN_LOG_OP(not_equal, a, b);
  KILN_HALF_IN_FLOAT32(not_equal, a, b);
  if (is_string(a.dtype()) || is_string(b.dtype())) return string_equal(a, b, false, "not_equal");
  return binary_forward(BinaryOp::ne, a, b, "not_equal");
}
Tensor less(const Tensor& a, const Tensor& b) {
  KILN_LOG_OP(less, a, b);
  KILN_HALF_IN_FLOAT32(less, a, b);
  return binary_forward(BinaryOp::lt, a, b, "less");
}
Tensor less_equal(const Tensor& a, const Tensor& b) {
  KILN_LOG_OP(less_equal, a, b);
  KILN_HALF_IN_FLOAT32(less_equal, a, b);
  return binary_forward(BinaryOp::le, a, b, "less_equal");
}
Tensor greater(const Tensor& a, const Tensor& b) {
  KILN_LOG_OP(greater, a, b);
  KILN_HALF_IN_FLOAT32(greater, a, b);
  return binary_forward(BinaryOp::gt, a, b, "greater");
}
Tensor greater_equal(const Tensor& a, const Tensor& b) {
  KILN_LOG_OP(greater_equal, a, b);
  KILN_HALF_IN_FLOAT32(greater_equal, a, b);
  return binary_forward(BinaryOp::ge, a, b, "greater_equal");
}
Tensor logical_and(const Tensor& a, const Tensor& b) {
  KILN_LOG_OP(logical_and, a, b);
  KILN_HALF_IN_FLOAT32(logical_and, a, b);
  return binary_forward(BinaryOp::logical_and, cast(a, DType::bool_), cast(b, DType::bool_), "logical_and");
}
Tensor logical_or(const Tensor& a, const Tensor& b) {
  KILN_LOG_OP(logical_or, a, b);
  KILN_HALF_IN_FLOAT32(logical_or, a, b);
  return binary_forward(BinaryOp::logical_or, cast(a, DType::bool_), cast(b, DType::bool_), "logical_or");
}
Tensor logical_not(const Tensor& x) {
  KILN_LOG_OP(logical_not, x);
  KILN_HALF_IN_FLOAT32(logical_not, x);
  return unary_forward(UnaryOp::logical_not, cast(x, DType::bool_), "logical_not");
}

}  // namespace kiln

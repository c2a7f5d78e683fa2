// keras.ops activations and element-wise maths as functional-graph nodes:
// each Keras op class maps to Kiln's function of the same maths, with the
// op's config (alpha, threshold, axis, ...) as its parameters.
#include "kiln/nn/activations.h"
#include "kiln/ops/math_ops.h"
#include "nn/operation_call.h"

namespace kiln::detail {

namespace {

/// keras.activations.relu as an op: Keras's ReLU.static_call, term by term.
Tensor relu_op(const OpCall& c) {
  Tensor x = c.operand(0);
  const double slope = c.number("negative_slope", 1, 0.0), threshold = c.number("threshold", 3, 0.0);
  const Config* max_value = c.keyword("max_value", 2);
  if (slope != 0.0 && (!max_value || max_value->is_null()) && threshold == 0.0)
    return activations::leaky_relu(x, slope);
  Tensor negative_part;
  if (slope != 0.0) negative_part = activations::relu(threshold != 0.0 ? scalar_like(threshold, x) - x : neg(x));
  Tensor y = threshold != 0.0 ? where(greater(x, scalar_like(threshold, x)), x, zeros_like(x)) : activations::relu(x);
  if (max_value && !max_value->is_null()) {
    if (!max_value->is_number()) c.fail("max_value must be a number or None, but received " + max_value->dump());
    y = clip(y, 0.0, max_value->get<double>());
  }
  if (slope != 0.0) y = y - negative_part * slope;
  return y;
}

}  // namespace

std::map<std::string, OpFn> elementwise_operations() {
  return {
      // Activations applied as ops (keras.activations.* on a symbolic tensor):
      // keras.src.ops.nn, and ReLU from keras.src.activations.
      {"Relu", [](const OpCall& c) { return activations::relu(c.operand(0)); }},
      {"Relu6", [](const OpCall& c) { return activations::relu6(c.operand(0)); }},
      {"ReLU", relu_op},
      {"Sigmoid", [](const OpCall& c) { return activations::sigmoid(c.operand(0)); }},
      {"SparseSigmoid", [](const OpCall& c) { return activations::sparse_sigmoid(c.operand(0)); }},
      {"Softplus", [](const OpCall& c) { return activations::softplus(c.operand(0)); }},
      {"Softsign", [](const OpCall& c) { return activations::softsign(c.operand(0)); }},
      {"SoftShrink", [](const OpCall& c) { return activations::soft_shrink(c.operand(0), c.number("threshold", 1, 0.5)); }},
      {"SparsePlus", [](const OpCall& c) { return activations::sparse_plus(c.operand(0)); }},
      {"Silu", [](const OpCall& c) { return activations::silu(c.operand(0)); }},
      {"Squareplus", [](const OpCall& c) { return activations::squareplus(c.operand(0), c.number("b", 1, 4.0)); }},
      {"LogSigmoid", [](const OpCall& c) { return activations::log_sigmoid(c.operand(0)); }},
      {"LeakyRelu",
       [](const OpCall& c) { return activations::leaky_relu(c.operand(0), c.number("negative_slope", 1, 0.2)); }},
      {"HardSigmoid", [](const OpCall& c) { return activations::hard_sigmoid(c.operand(0)); }},
      {"HardSilu", [](const OpCall& c) { return activations::hard_silu(c.operand(0)); }},
      {"Elu", [](const OpCall& c) { return activations::elu(c.operand(0), c.number("alpha", 1, 1.0)); }},
      {"Selu", [](const OpCall& c) { return activations::selu(c.operand(0)); }},
      {"Gelu",
       [](const OpCall& c) {
         const Config* a = c.keyword("approximate", 1);
         return activations::gelu(c.operand(0), !a || !a->is_boolean() || a->get<bool>());
       }},
      {"Celu", [](const OpCall& c) { return activations::celu(c.operand(0), c.number("alpha", 1, 1.0)); }},
      {"Glu", [](const OpCall& c) { return activations::glu(c.operand(0), c.axis(1, -1)); }},
      {"TanhShrink", [](const OpCall& c) { return activations::tanh_shrink(c.operand(0)); }},
      {"HardTanh", [](const OpCall& c) { return activations::hard_tanh(c.operand(0)); }},
      {"HardShrink", [](const OpCall& c) { return activations::hard_shrink(c.operand(0), c.number("threshold", 1, 0.5)); }},
      {"Threshold",
       [](const OpCall& c) {
         const Config* t = c.keyword("threshold", 1);
         const Config* d = c.keyword("default_value", 2);
         if (!t || !t->is_number() || !d || !d->is_number()) c.fail("needs numbers threshold and default_value");
         return activations::threshold(c.operand(0), t->get<double>(), d->get<double>());
       }},
      {"Softmax", [](const OpCall& c) { return activations::softmax(c.operand(0), c.axis(1, -1)); }},
      {"LogSoftmax", [](const OpCall& c) { return activations::log_softmax(c.operand(0), c.axis(1, -1)); }},
      // Element-wise maths of keras.ops (numpy and math modules).
      {"Exp", [](const OpCall& c) { return exp(c.operand(0)); }},
      {"Log", [](const OpCall& c) { return log(c.operand(0)); }},
      {"Log1p", [](const OpCall& c) { return log1p(c.operand(0)); }},
      {"Expm1", [](const OpCall& c) { return expm1(c.operand(0)); }},
      {"Sqrt", [](const OpCall& c) { return sqrt(c.operand(0)); }},
      {"Rsqrt", [](const OpCall& c) { return rsqrt(c.operand(0)); }},
      {"Square", [](const OpCall& c) { return square(c.operand(0)); }},
      {"Absolute", [](const OpCall& c) { return abs(c.operand(0)); }},
      {"Negative", [](const OpCall& c) { return neg(c.operand(0)); }},
      {"Sign", [](const OpCall& c) { return sign(c.operand(0)); }},
      {"Sin", [](const OpCall& c) { return sin(c.operand(0)); }},
      {"Cos", [](const OpCall& c) { return cos(c.operand(0)); }},
      {"Tanh", [](const OpCall& c) { return tanh(c.operand(0)); }},
      {"Erf", [](const OpCall& c) { return erf(c.operand(0)); }},
      {"Floor", [](const OpCall& c) { return floor(c.operand(0)); }},
  };
}

}  // namespace kiln::detail

// Activations, each composed from differentiable kiln ops so that the tape
// differentiates them without rules of their own (formulas: activations.h).
#include "kiln/nn/activations.h"

#include <cmath>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/nn_ops.h"
#include "kiln/core/error.h"
#include "kiln/core/registry.h"

namespace kiln::activations {
namespace {

// The SELU constants from Klambauer et al. 2017, as in Keras.
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

const Registry<Activation>& table() {
  static const Registry<Activation> r = [] {
    Registry<Activation> t("activation");
    t.add("linear", linear);
    t.add("relu", relu);
    t.add("relu6", relu6);
    t.add("leaky_relu", [](const Tensor& x) { return activations::leaky_relu(x); });
    t.add("sigmoid", sigmoid);
    t.add("hard_sigmoid", hard_sigmoid);
    t.add("tanh", tanh);
    t.add("softmax", [](const Tensor& x) { return activations::softmax(x); });
    t.add("log_softmax", [](const Tensor& x) { return activations::log_softmax(x); });
    t.add("softplus", softplus);
    t.add("softsign", softsign);
    t.add("elu", [](const Tensor& x) { return activations::elu(x); });
    t.add("selu", selu);
    t.add("gelu", [](const Tensor& x) { return activations::gelu(x); });
    t.add("silu", silu);
    t.add("swish", silu);
    t.add("hard_silu", hard_silu);
    t.add("hard_swish", hard_silu);
    t.add("mish", mish);
    t.add("exponential", exponential);
    t.add("crelu", [](const Tensor& x) { return activations::crelu(x); });
    t.add("celu", [](const Tensor& x) { return activations::celu(x); });
    t.add("glu", [](const Tensor& x) { return activations::glu(x); });
    t.add("hard_shrink", [](const Tensor& x) { return activations::hard_shrink(x); });
    t.add("hard_tanh", hard_tanh);
    t.add("log_sigmoid", log_sigmoid);
    t.add("soft_shrink", [](const Tensor& x) { return activations::soft_shrink(x); });
    t.add("sparse_plus", sparse_plus);
    t.add("sparse_sigmoid", sparse_sigmoid);
    t.add("squareplus", [](const Tensor& x) { return activations::squareplus(x); });
    t.add("tanh_shrink", tanh_shrink);
    return t;
  }();
  return r;
}

}  // namespace

Activation get(const std::string& name) {
  if (name.empty()) return linear;
  return table().get(name);
}

std::vector<std::string> names() { return table().names(); }  // std::map keeps them sorted

Tensor linear(const Tensor& x) { return x; }
Tensor relu(const Tensor& x) { return kiln::relu(x); }
Tensor sigmoid(const Tensor& x) { return kiln::sigmoid(x); }
Tensor tanh(const Tensor& x) { return kiln::tanh(x); }
Tensor softmax(const Tensor& x, int axis) { return kiln::softmax(x, axis); }
Tensor log_softmax(const Tensor& x, int axis) { return kiln::log_softmax(x, axis); }
Tensor softplus(const Tensor& x) { return kiln::softplus(x); }
Tensor exponential(const Tensor& x) { return kiln::exp(x); }

Tensor elu(const Tensor& x, double alpha) {
  // expm1 only sees min(x, 0): exp of a large positive x in the unused branch
  // would be inf, and inf * 0 in the backward pass gives nan.
  Tensor negative = kiln::expm1(kiln::minimum(x, scalar_like(0.0, x))) * alpha;
  return kiln::where(x > 0.0, x, negative);
}

Tensor selu(const Tensor& x) { return activations::elu(x, kSeluAlpha) * kSeluScale; }

Tensor gelu(const Tensor& x, bool approximate) {
  if (approximate) {
    const double c = std::sqrt(2.0 / M_PI);
    Tensor inner = (x + x * x * x * 0.044715) * c;
    return x * 0.5 * (1.0 + kiln::tanh(inner));
  }
  return x * 0.5 * (1.0 + kiln::erf(x * (1.0 / std::sqrt(2.0))));
}

Tensor silu(const Tensor& x) { return x * kiln::sigmoid(x); }
Tensor softsign(const Tensor& x) { return x / (1.0 + kiln::abs(x)); }

// The kinks take JAX's one-sided choices, so gradients there match Keras 3:
// leaky_relu has slope 1 at 0; relu6 has slope 0 at 0 and at 6.
Tensor leaky_relu(const Tensor& x, double negative_slope) {
  return kiln::where(x >= 0.0, x, x * negative_slope);
}

Tensor relu6(const Tensor& x) { return kiln::where(x >= 6.0, scalar_like(6.0, x), kiln::relu(x)); }
Tensor hard_sigmoid(const Tensor& x) { return activations::relu6(x + 3.0) / 6.0; }
Tensor hard_silu(const Tensor& x) { return x * activations::hard_sigmoid(x); }
Tensor mish(const Tensor& x) { return x * kiln::tanh(kiln::softplus(x)); }

Tensor crelu(const Tensor& x, int axis) { return kiln::concat({kiln::relu(x), kiln::relu(-x)}, axis); }

Tensor celu(const Tensor& x, double alpha) {
  // As elu: expm1 only sees min(x, 0), so the unused branch stays finite.
  Tensor negative = kiln::expm1(kiln::minimum(x, scalar_like(0.0, x)) / alpha) * alpha;
  return kiln::where(x > 0.0, x, negative);
}

Tensor glu(const Tensor& x, int axis) {
  const int a = axis < 0 ? axis + static_cast<int>(x.rank()) : axis;
  if (a < 0 || a >= x.rank() || x.shape()[a] % 2 != 0)
    throw ValueError("glu: the size of axis " + std::to_string(axis) + " must be even, but received input shape " +
                     x.shape().to_string());
  std::vector<Tensor> halves = kiln::split(x, 2, a);
  return halves[0] * kiln::sigmoid(halves[1]);
}

Tensor hard_shrink(const Tensor& x, double threshold) {
  return kiln::where(kiln::abs(x) > threshold, x, zeros_like(x));
}

Tensor hard_tanh(const Tensor& x) {
  return kiln::where(x > 1.0, scalar_like(1.0, x), kiln::where(x < -1.0, scalar_like(-1.0, x), x));
}

Tensor log_sigmoid(const Tensor& x) { return -kiln::softplus(-x); }

Tensor soft_shrink(const Tensor& x, double threshold) {
  return kiln::where(x > threshold, x - threshold, kiln::where(x < -threshold, x + threshold, zeros_like(x)));
}

Tensor sparse_plus(const Tensor& x) {
  Tensor middle = kiln::square(x + 1.0) * 0.25;
  return kiln::where(x <= -1.0, zeros_like(x), kiln::where(x >= 1.0, x, middle));
}

Tensor sparse_sigmoid(const Tensor& x) { return kiln::clip(x + 1.0, 0.0, 2.0) * 0.5; }

Tensor squareplus(const Tensor& x, double b) { return (x + kiln::sqrt(kiln::square(x) + b)) * 0.5; }

Tensor tanh_shrink(const Tensor& x) { return x - kiln::tanh(x); }

Tensor threshold(const Tensor& x, double threshold, double default_value) {
  return kiln::where(x > threshold, x, scalar_like(default_value, x));
}

}  // namespace kiln::activations

#pragma once
// Activations: one table looked up by name. linear, relu, sigmoid, tanh,
// softmax, softplus, softsign, elu, selu, gelu, silu/swish, leaky_relu,
// exponential, hard_sigmoid, log_softmax, relu6, mish, hard_silu, crelu
// (aliases: swish = silu, hard_swish = hard_silu). Every one is composed of
// differentiable ops, so gradients flow through it.
//   Tensor y = kiln::activations::get("gelu")(x);
//
// To add an activation: write the function below (from kiln ops only) and
// add one line to the table in framework/src/nn/activations.cpp.
#include <functional>
#include <string>
#include <vector>

#include "kiln/core/tensor.h"

namespace kiln::activations {

using Activation = std::function<Tensor(const Tensor&)>;

/// Throws NotFoundError naming the unknown activation and listing close matches.
/// An empty name gives linear (Keras: activations.get(None) is linear).
Activation get(const std::string& name);
/// All registered names, sorted.
std::vector<std::string> names();

/// x, unchanged.
Tensor linear(const Tensor& x);
/// max(x, 0).
Tensor relu(const Tensor& x);
/// 1 / (1 + exp(-x)).
Tensor sigmoid(const Tensor& x);
Tensor tanh(const Tensor& x);
/// exp(x) / sum(exp(x)) over `axis` (computed stably).
Tensor softmax(const Tensor& x, int axis = -1);
/// x - logsumexp(x) over `axis`.
Tensor log_softmax(const Tensor& x, int axis = -1);
/// log(1 + exp(x)).
Tensor softplus(const Tensor& x);
/// exp(x).
Tensor exponential(const Tensor& x);
/// x * tanh(softplus(x)).
Tensor mish(const Tensor& x);
/// x * relu6(x + 3) / 6 (hard swish).
Tensor hard_silu(const Tensor& x);
/// concat([relu(x), relu(-x)], axis): doubles the size of `axis`.
Tensor crelu(const Tensor& x, int axis = -1);
/// x for x > 0, alpha * (exp(x) - 1) otherwise.
Tensor elu(const Tensor& x, double alpha = 1.0);
/// scale * elu(x, alpha) with alpha = 1.6732632423543772, scale = 1.0507009873554805.
Tensor selu(const Tensor& x);
/// 0.5 * x * (1 + erf(x / sqrt(2))): the exact form by default, as Keras 3;
/// approximate=true uses 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))).
Tensor gelu(const Tensor& x, bool approximate = false);
/// x * sigmoid(x) (also "swish").
Tensor silu(const Tensor& x);
/// x / (1 + |x|).
Tensor softsign(const Tensor& x);
/// x for x > 0, negative_slope * x otherwise; Keras 3 default negative_slope = 0.2.
Tensor leaky_relu(const Tensor& x, double negative_slope = 0.2);
/// Keras 3: relu6(x + 3) / 6.
Tensor hard_sigmoid(const Tensor& x);
/// min(max(x, 0), 6).
Tensor relu6(const Tensor& x);

}  // namespace kiln::activations

#pragma once
// Activations: one table looked up by name. linear, relu, sigmoid, tanh,
// softmax, softplus, softsign, elu, selu, gelu, silu/swish, leaky_relu,
// exponential, hard_sigmoid, log_softmax, relu6, mish, hard_silu, crelu,
// celu, glu, hard_shrink, hard_tanh, log_sigmoid, soft_shrink, sparse_plus,
// sparse_sigmoid, squareplus, tanh_shrink (aliases: swish = silu,
// hard_swish = hard_silu); by name, each takes Keras 3's default parameters.
// Every one is composed of differentiable ops, so gradients flow through it;
// at a kink the gradient is the one JAX (Keras 3's reference) gives.
// threshold needs its two parameters, so it has no name (Keras 3's
// activations.get("threshold") gives a function that cannot be called on x alone).
//   Tensor y = kiln::activations::get("gelu")(x);
//
// To add an activation: write the function below (from kiln ops only) and
// add one line to the table in framework/src/nn/activations.cpp.
#include <functional>
#include <string>
#include <vector>

#include "kiln/core/tensor.h"

namespace kiln::activations {

/// An activation function: tensor in, tensor out.
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
Tensor tanh(const Tensor& x);  ///< Hyperbolic tangent.
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
/// x for x > 0, alpha * (exp(x / alpha) - 1) otherwise.
Tensor celu(const Tensor& x, double alpha = 1.0);
/// a * sigmoid(b) where a, b are the two halves of `axis` (its size must be even).
Tensor glu(const Tensor& x, int axis = -1);
/// x where |x| > threshold, 0 otherwise.
Tensor hard_shrink(const Tensor& x, double threshold = 0.5);
/// -1 for x < -1, 1 for x > 1, x otherwise.
Tensor hard_tanh(const Tensor& x);
/// log(sigmoid(x)) = -softplus(-x).
Tensor log_sigmoid(const Tensor& x);
/// x - threshold for x > threshold, x + threshold for x < -threshold, 0 otherwise.
Tensor soft_shrink(const Tensor& x, double threshold = 0.5);
/// 0 for x <= -1, (x + 1)^2 / 4 for -1 < x < 1, x for x >= 1.
Tensor sparse_plus(const Tensor& x);
/// clip(x + 1, 0, 2) / 2.
Tensor sparse_sigmoid(const Tensor& x);
/// (x + sqrt(x^2 + b)) / 2.
Tensor squareplus(const Tensor& x, double b = 4.0);
/// x - tanh(x).
Tensor tanh_shrink(const Tensor& x);
/// x where x > threshold, default_value otherwise.
Tensor threshold(const Tensor& x, double threshold, double default_value);

}  // namespace kiln::activations

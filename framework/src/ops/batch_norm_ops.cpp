// batch_norm_training: one fused op where the backend has a kernel, with a
// gradient that needs only x, the batch statistics and gamma. Elsewhere, and
// under an outer tape (higher-order gradients), it is composed from
// differentiable ops, with the same results.
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/nn_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "ops/op_util.h"
#include "core/op_log.h"
#include "ops/half_compute.h"

namespace kiln {

using namespace ops;

namespace {
BatchNormResult composed_forward(const Tensor& x, const Tensor& gamma, const Tensor& beta, double eps) {
  const auto axes = all_but_last_axis(x.rank());
  Tensor m = mean(x, Axes(axes), true);
  Tensor v = var(x, Axes(axes), true);
  Tensor inv = rsqrt(add(v, scalar_like(eps, v)));
  if (gamma.defined()) inv = multiply(inv, gamma);
  Tensor y = multiply(subtract(x, m), inv);
  if (beta.defined()) y = add(y, beta);
  const Shape c{x.shape()[-1]};
  return {y, reshape(stop_gradient(m), c), reshape(stop_gradient(v), c)};
}

// The gradient from dy, written with differentiable ops (for nested tapes).
Grads composed_backward(const Tensor& dy, const Tensor& x, const Tensor& gamma, bool has_beta, double eps) {
  const auto axes = all_but_last_axis(x.rank());
  Tensor m = mean(x, Axes(axes), true);
  Tensor inv = rsqrt(add(var(x, Axes(axes), true), scalar_like(eps, x)));
  Tensor xhat = multiply(subtract(x, m), inv);
  Tensor dxhat = gamma.defined() ? multiply(dy, gamma) : dy;
  Tensor dx = multiply(inv, subtract(subtract(dxhat, mean(dxhat, Axes(axes), true)),
                                     multiply(xhat, mean(multiply(dxhat, xhat), Axes(axes), true))));
  Grads g{dx};
  if (gamma.defined()) g.push_back(sum(multiply(dy, xhat), Axes(axes)));
  if (has_beta) g.push_back(sum(dy, Axes(axes)));
  return g;
}

}  // namespace

// A 16-bit batch normalization's results, rounded back from float32 (ops/half_compute.h).
static BatchNormResult narrow(BatchNormResult r, DType to) {
  return {cast(r.y, to), cast(r.mean, to), cast(r.variance, to)};
}

BatchNormResult batch_norm_training(const Tensor& x, const Tensor& gamma, const Tensor& beta, double epsilon) {
  KILN_HALF_IN_FLOAT32(batch_norm_training, x, gamma, beta, epsilon);
  check_concrete("batch_norm_training", x);
  if (!is_floating(x.dtype()))
    throw TypeError("batch_norm_training: expected a float input, but received " + dtype_name(x.dtype()) +
                    " with shape " + x.shape().to_string());
  if (x.rank() < 2)
    throw ShapeError("batch_norm_training: expected an input of rank >= 2 (batch, ..., channels), but received shape " +
                     x.shape().to_string());
  if (gamma.defined()) check_per_channel("batch_norm_training", "gamma", gamma, x, "input");
  if (beta.defined()) check_per_channel("batch_norm_training", "beta", beta, x, "input");
  const Shape c{x.shape()[-1]};
  Tensor y = Tensor::empty(x.shape(), x.dtype(), x.device());
  Tensor m = Tensor::empty(c, x.dtype(), x.device());
  Tensor v = Tensor::empty(c, x.dtype(), x.device());
  const Tensor* gp = gamma.defined() ? &gamma : nullptr;
  const Tensor* bp = beta.defined() ? &beta : nullptr;
  if (!be(x).batch_norm_training(x, gp, bp, epsilon, y, m, v)) return composed_forward(x, gamma, beta, epsilon);
  if (autodiff::active()) {
    std::vector<Tensor> inputs{x};
    if (gp) inputs.push_back(gamma);
    if (bp) inputs.push_back(beta);
    autodiff::record("FusedBatchNorm", inputs, {y},
                     [x, gamma, has_beta = bp != nullptr, m, v, epsilon](const Grads& dy, const Needs&) {
                       if (autodiff::active()) return composed_backward(dy[0], x, gamma, has_beta, epsilon);
                       Tensor dx = Tensor::empty(x.shape(), x.dtype(), x.device());
                       Tensor dg, db;
                       if (gamma.defined()) dg = Tensor::empty(gamma.shape(), x.dtype(), x.device());
                       if (has_beta) db = Tensor::empty(Shape{x.shape()[-1]}, x.dtype(), x.device());
                       if (!be(x).batch_norm_training_backward(dy[0], x, m, v, gamma.defined() ? &gamma : nullptr,
                                                               epsilon, dx, dg.defined() ? &dg : nullptr,
                                                               db.defined() ? &db : nullptr))
                         return composed_backward(dy[0], x, gamma, has_beta, epsilon);
                       Grads g{dx};
                       if (gamma.defined()) g.push_back(dg);
                       if (has_beta) g.push_back(db);
                       return g;
                     });
  }
  return {y, m, v};
}

Tensor batch_norm_inference(const Tensor& x, const Tensor& mean, const Tensor& variance, const Tensor& gamma,
                            const Tensor& beta, double epsilon) {
  KILN_LOG_OP(batch_norm_inference, x, mean, variance, gamma, beta, epsilon);
  KILN_HALF_IN_FLOAT32(batch_norm_inference, x, mean, variance, gamma, beta, epsilon);
  check_concrete("batch_norm_inference", x);
  if (!is_floating(x.dtype()))
    throw TypeError("batch_norm_inference: expected a float input, but received " + dtype_name(x.dtype()) +
                    " with shape " + x.shape().to_string());
  check_per_channel("batch_norm_inference", "mean", mean, x, "input");
  check_per_channel("batch_norm_inference", "variance", variance, x, "input");
  if (gamma.defined()) check_per_channel("batch_norm_inference", "gamma", gamma, x, "input");
  if (beta.defined()) check_per_channel("batch_norm_inference", "beta", beta, x, "input");
  if (x.rank() >= 2 && !autodiff::active()) {
    Tensor y = Tensor::empty(x.shape(), x.dtype(), x.device());
    if (be(x).batch_norm_inference(x, mean, variance, gamma.defined() ? &gamma : nullptr,
                                   beta.defined() ? &beta : nullptr, epsilon, y))
      return y;
  }
  Tensor inv = rsqrt(add(variance, scalar_like(epsilon, variance)));
  if (gamma.defined()) inv = multiply(inv, gamma);
  Tensor y = multiply(subtract(x, mean), inv);
  if (beta.defined()) y = add(y, beta);
  return y;
}

}  // namespace kiln

// keras.ops.binary_crossentropy, categorical_crossentropy and
// sparse_categorical_crossentropy: the per-example losses of Keras's JAX backend,
// with no reduction, label smoothing or sample weights (the Loss classes add those).
#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/creation_ops.h"
#include "kiln/ops/keras_nn_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/nn_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "kiln/ops/shape_ops.h"
#include "ops/backend_epsilon.h"
#include "ops/op_util.h"

namespace kiln {

namespace {

using ops::kBackendEpsilon;

Tensor float_output(const char* op, const Tensor& output) {
  if (!is_floating(output.dtype()))
    throw TypeError(std::string(op) + ": expected a float32 or float64 `output`, but received " +
                    dtype_name(output.dtype()) + " with shape " + output.shape().to_string());
  return output;
}

Tensor like(const Tensor& t, const Tensor& ref) { return t.dtype() == ref.dtype() ? t : cast(t, ref.dtype()); }

void check_same_shape(const char* op, const Tensor& target, const Tensor& output) {
  if (!(target.shape() == output.shape()))
    throw ValueError(std::string(op) + ": Arguments `target` and `output` must have the same shape. Received: "
                     "target.shape=" + target.shape().to_string() + ", output.shape=" + output.shape().to_string());
}

// log of the class probabilities along `axis`: from logits, or of output normalised
// to sum 1 and clipped away from 0 and 1.
Tensor log_probabilities(const Tensor& output, bool from_logits, int axis) {
  if (from_logits) return log_softmax(output, axis);
  Tensor p = output / sum(output, axis, true);
  return log(clip(p, kBackendEpsilon, 1.0 - kBackendEpsilon));
}

}  // namespace

Tensor binary_crossentropy(const Tensor& target, const Tensor& output, bool from_logits) {
  const Tensor o = float_output("binary_crossentropy", output);
  check_same_shape("binary_crossentropy", target, o);
  const Tensor t = like(target, o);
  if (from_logits)  // log_sigmoid(z) = -softplus(-z)
    return t * softplus(-o) + (1.0 - t) * softplus(o);
  const Tensor p = clip(o, kBackendEpsilon, 1.0 - kBackendEpsilon);
  return -(t * log(p) + (1.0 - t) * log(1.0 - p));
}

Tensor categorical_crossentropy(const Tensor& target, const Tensor& output, bool from_logits, int axis) {
  const Tensor o = float_output("categorical_crossentropy", output);
  check_same_shape("categorical_crossentropy", target, o);
  if (o.rank() < 1)
    throw ValueError("categorical_crossentropy: Arguments `target` and `output` must be at least rank 1. Received: "
                     "target.shape=" + target.shape().to_string() + ", output.shape=" + o.shape().to_string());
  const int a = ops::normalize_axis("categorical_crossentropy", axis, o.rank());
  return -sum(like(target, o) * log_probabilities(o, from_logits, a), a);
}

Tensor sparse_categorical_crossentropy(const Tensor& target, const Tensor& output, bool from_logits, int axis) {
  // As Keras's JAX backend: 16-bit outputs meet float32 one-hot targets, so the losses are float32.
  if (is_half_float(output.dtype()))
    return sparse_categorical_crossentropy(target, cast(output, DType::float32), from_logits, axis);
  const Tensor o = float_output("sparse_categorical_crossentropy", output);
  if (o.rank() < 1)
    throw ValueError("sparse_categorical_crossentropy: Argument `output` must be at least rank 1. Received: "
                     "output.shape=" + o.shape().to_string());
  Tensor t = target.dtype() == DType::int32 ? target : cast(target, DType::int32);
  if (t.rank() == o.rank() && t.rank() > 0 && t.shape()[-1] == 1) t = squeeze(t, {-1});
  if (!(t.shape() == o.shape().slice(0, o.rank() - 1)))
    throw ValueError("sparse_categorical_crossentropy: Arguments `target` and `output` must have the same shape up "
                     "until the last dimension: target.shape=" + target.shape().to_string() +
                     ", output.shape=" + o.shape().to_string());
  const int a = ops::normalize_axis("sparse_categorical_crossentropy", axis, o.rank());
  // One-hot by comparison, so labels outside [0, C) weigh nothing (as jax.nn.one_hot).
  const int64_t c = o.shape()[a];
  Tensor hot = cast(equal(expand_dims(t, -1), arange(0.0, static_cast<double>(c), 1.0, DType::int32).to(o.device())), o.dtype());
  if (a != o.rank() - 1) hot = moveaxis(hot, {-1}, {a});
  return -sum(hot * log_probabilities(o, from_logits, a), a);
}

}  // namespace kiln

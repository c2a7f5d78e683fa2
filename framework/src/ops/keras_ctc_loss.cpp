// keras.ops.ctc_loss as Keras's JAX backend computes it (optax's ctc_loss): the CTC
// forward recursion in log space over two lattices, the blank states (phi, one per
// label prefix, N + 1 of them) and the emit states (one per label), with impossible
// transitions weighted by log_epsilon = -1e5 rather than -inf so that every step
// stays finite and differentiable. Built from differentiable ops, so the tape gives
// the gradient.
#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/creation_ops.h"
#include "kiln/ops/elementwise_math.h"
#include "kiln/ops/keras_nn_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/nn_ops.h"
#include "kiln/ops/reduce_ops.h"

namespace kiln {

namespace {

constexpr double kLogEpsilon = -1e5;

// Row b of the result is 1 where index < lengths[b]: (B,) -> (B, n) of dtype.
Tensor below_length(const Tensor& lengths, int64_t n, DType dtype) {
  Tensor idx = reshape(arange(0.0, static_cast<double>(n), 1.0, DType::int32), {1, n}).to(lengths.device());
  return cast(less(idx, expand_dims(cast(lengths, DType::int32), 1)), dtype);
}

// phi[:, 1:] combined with `added` in log space; phi[:, 0] kept.
Tensor update_phi(const Tensor& phi, const Tensor& added) {
  const int64_t n = phi.shape()[1];
  return concat({slice(phi, {Slice(), Slice(0, 1)}), logaddexp(slice(phi, {Slice(), Slice(1, n)}), added)}, 1);
}

void check_ctc_inputs(const Tensor& target, const Tensor& output, const Tensor& target_length,
                      const Tensor& output_length, int64_t mask_index) {
  const auto text = [&] {
    return " (target " + target.shape().to_string() + ", output " + output.shape().to_string() + ", target_length " +
           target_length.shape().to_string() + ", output_length " + output_length.shape().to_string() + ")";
  };
  if (output.rank() != 3 || target.rank() != 2 || target.shape()[0] != output.shape()[0] ||
      !(target_length.shape() == Shape{output.shape()[0]}) || !(output_length.shape() == Shape{output.shape()[0]}))
    throw ShapeError("ctc_loss: expected output (batch, max_time, num_classes), target (batch, max_label_length) "
                     "and both lengths (batch,)" + text());
  if (!is_floating(output.dtype()) || is_floating(target.dtype()) || is_floating(target_length.dtype()) ||
      is_floating(output_length.dtype()))
    throw TypeError("ctc_loss: expected float output and integer target and lengths, but received output " +
                    dtype_name(output.dtype()) + ", target " + dtype_name(target.dtype()) + text());
  if (mask_index < 0 || mask_index >= output.shape()[2])
    throw ValueError("ctc_loss: `mask_index` must be in [0, " + std::to_string(output.shape()[2]) +
                     "), but received " + std::to_string(mask_index) + text());
}

}  // namespace

Tensor ctc_loss(const Tensor& target, const Tensor& output, const Tensor& target_length, const Tensor& output_length,
                int64_t mask_index) {
  // As Keras: 16-bit logits are computed, and the losses returned, in float32 (log-space
  // sums underflow float16).
  if (is_half_float(output.dtype()))
    return ctc_loss(target, cast(output, DType::float32), target_length, output_length, mask_index);
  check_ctc_inputs(target, output, target_length, output_length, mask_index);
  const int64_t b = output.shape()[0], t_max = output.shape()[1], k = output.shape()[2], n = target.shape()[1];
  const DType d = output.dtype();
  const Device dev = output.device();
  const Tensor labels = cast(target, DType::int32);
  const Tensor logprobs = log_softmax(output, -1);  // (B, T, K)
  const Tensor hot = cast(equal(expand_dims(labels, -1), arange(0.0, static_cast<double>(k), 1.0, DType::int32).to(dev)), d);
  const Tensor emit = matmul(logprobs, hot, false, true);  // (B, T, N)
  const Tensor blank = slice(logprobs, {Slice(), Slice(), Slice(mask_index, mask_index + 1)});  // (B, T, 1)
  // repeat[b, j] = 1 where label j equals label j + 1 (the last column 0).
  Tensor repeat = zeros({b, 1}, d).to(dev);
  if (n > 1)
    repeat = concat({cast(equal(slice(labels, {Slice(), Slice(0, n - 1)}), slice(labels, {Slice(), Slice(1, n)})), d), repeat}, 1);
  const Tensor padded = 1.0 - below_length(output_length, t_max, d);  // (B, T): 1 past each sequence's end
  Tensor phi = concat({zeros({b, 1}, d).to(dev), fill({b, n}, kLogEpsilon, d).to(dev)}, 1);
  Tensor em = fill({b, n}, kLogEpsilon, d).to(dev);
  for (int64_t t = 0; t < t_max; ++t) {
    const Tensor e_t = slice(emit, {Slice(), t}), p_t = slice(blank, {Slice(), t}), pad = slice(padded, {Slice(), Slice(t, t + 1)});
    const Tensor phi_in = update_phi(phi, em + kLogEpsilon * repeat);  // emit -> blank, unless the next label repeats
    Tensor next_emit = logaddexp(slice(phi_in, {Slice(), Slice(0, n)}) + e_t, em + e_t);
    Tensor next_phi = update_phi(phi_in + p_t, em + p_t + kLogEpsilon * (1.0 - repeat));
    em = pad * em + (1.0 - pad) * next_emit;
    phi = pad * phi + (1.0 - pad) * next_phi;
  }
  const Tensor last = update_phi(phi, em);  // (B, N + 1)
  // The state after each sequence's label_length labels.
  const Tensor label_lengths = cast(sum(below_length(target_length, n, DType::float32), 1), DType::int32);
  const Tensor pick = cast(equal(expand_dims(label_lengths, 1), arange(0.0, static_cast<double>(n + 1), 1.0, DType::int32).to(dev)), d);
  return -sum(last * pick, 1);
}

}  // namespace kiln

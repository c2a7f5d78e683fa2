#pragma once
// Private: what the fused recurrences share (framework/src/ops/recurrent_ops.cpp,
// gru_recurrence.cpp): activations with their derivatives, the mask's rules at
// one timestep, and the tensors a forward pass keeps for its backward pass.
#include <string>
#include <vector>

#include "kiln/core/tensor.h"
#include "kiln/ops/recurrent_ops.h"

namespace kiln::ops::recurrence_steps {

Tensor activate(const std::string& name, const Tensor& pre);
/// d activation / d pre, from the pre-activation and the activation's value.
Tensor activation_grad(const std::string& name, const Tensor& pre, const Tensor& value);

/// Everything one call of a recurrence sees.
struct Run {
  Tensor projected, kernel, bias;  // bias: GRU reset_after only
  std::vector<Tensor> states;
  Tensor mask;  // (batch, time) bool or undefined
  RecurrenceOptions o;
  int64_t batch = 0, steps = 0, units = 0;
  /// (batch, 1) bool for step t, or undefined without a mask.
  Tensor keep(int64_t t) const;
};

/// Per-step tensors the backward pass needs (named by the cell's code).
using Saved = std::vector<std::vector<Tensor>>;

/// Masked step: out = keep ? new : held (zeros, or the previous h), state = keep ? new : old.
Tensor masked_output(const Run& r, const Tensor& keep, const Tensor& fresh, const Tensor& h_prev);
Tensor masked_state(const Tensor& keep, const Tensor& fresh, const Tensor& old);

/// The backward of the mask at one step: the gradient reaching the fresh h
/// (d state + d output where kept) and what passes to the previous h.
struct MaskedGrad {
  Tensor fresh, carry;  // carry undefined when nothing passes
};
MaskedGrad split_h_grad(const Run& r, const Tensor& keep, const Tensor& dh, const Tensor& dout);
MaskedGrad split_state_grad(const Tensor& keep, const Tensor& ds);
Tensor add_defined(const Tensor& a, const Tensor& b);

/// {outputs, h_T} and the backward of the GRU (gru_recurrence.cpp).
std::vector<Tensor> gru_forward(const Run& r, Saved& saved);
std::vector<Tensor> gru_backward(const Run& r, const Saved& saved, const Tensor& d_out, std::vector<Tensor> d_states);

}  // namespace kiln::ops::recurrence_steps

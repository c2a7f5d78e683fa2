#pragma once
// The recurrences of the built-in cells (SimpleRNN, LSTM, GRU) over a whole
// sequence as one op: the forward loop records nothing per timestep, and the
// gradient rule is backpropagation through time written by hand next to it
// (framework/src/ops/recurrent_ops.cpp), with the recurrent kernel's gradient
// as one matmul over all timesteps.
//
//   projected:        (batch, time, G·units), x · kernel + input bias for every step
//                     (G = 1 for SimpleRNN, 4 for LSTM, 3 for GRU)
//   recurrent_kernel: (units, G·units)
//   recurrent_bias:   (G·units,) for GRU with reset_after, else undefined
//   states:           the initial states, {h} or {h, c} for LSTM, each (batch, units)
//   mask:             (batch, time) bool, or undefined; a masked step keeps the
//                     states and outputs the previous h (zeros with zero_output_for_mask)
// Returns {outputs (batch, time, units), final states...}; the formulas are
// Keras 3's (kiln/layers/lstm.h, gru.h, simple_rnn.h). Activations: tanh,
// sigmoid, hard_sigmoid, relu and linear (recurrence_supports says).
#include <string>
#include <vector>

#include "kiln/core/tensor.h"

namespace kiln {

/// Which built-in cell a recurrence runs.
enum class RecurrentKind { simple_rnn, lstm, gru };

/// Options of the whole-sequence recurrence.
struct RecurrenceOptions {
  RecurrentKind kind = RecurrentKind::lstm;  ///< The cell: SimpleRNN, LSTM or GRU.
  std::string activation = "tanh";  ///< The output activation.
  std::string recurrent_activation = "sigmoid";  ///< The gate activation (LSTM and GRU).
  bool reset_after = true;  ///< GRU: the reset gate applies after the recurrent matmul
  bool zero_output_for_mask = false;  ///< Outputs zeros, not the previous h, at masked steps.
};

/// Whether recurrence() knows this activation's derivative.
bool recurrence_supports(const std::string& activation);

/// A whole sequence of a built-in cell's recurrence as one op (see the top of this
/// header): returns {outputs (batch, time, units), final states...}.
std::vector<Tensor> recurrence(const Tensor& projected, const Tensor& recurrent_kernel, const Tensor& recurrent_bias,
                               const std::vector<Tensor>& states, const Tensor& mask, const RecurrenceOptions& options);

}  // namespace kiln

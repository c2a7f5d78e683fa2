#pragma once
// LSTM and LSTMCell (Keras 3's formulas and weight layout).
//   z = x · kernel + h · recurrent_kernel + bias, split in four: i, f, c, o
//   i, f, o = recurrent_activation(z_i, z_f, z_o);  c' = f * c + i * activation(z_c)
//   h' = o * activation(c');  the output is h'; states {h, c}
//   kernel (features, 4·units), recurrent_kernel (units, 4·units), bias (4·units,)
//   unit_forget_bias starts the forget gate's bias at 1.
//
//   L::LSTM lstm(32, {.return_sequences = true});   // (batch, time, f) -> (batch, time, 32)
//   L::LSTM(8, {.return_state = true})->...          // call_multi gives {output, h, c}
#include <cstdint>
#include <optional>
#include <string>

#include "kiln/core/fields.h"
#include "kiln/layers/rnn.h"
#include "kiln/nn/activations.h"

namespace kiln::layers {

/// Options of LSTMCell (Keras's `LSTMCell` constructor arguments after units).
struct LSTMCellOptions {
  std::string activation = "tanh";  ///< Activation of the output; any name of kiln::activations::get.
  std::string recurrent_activation = "sigmoid";  ///< Activation of the gates; any name of kiln::activations::get.
  bool use_bias = true;  ///< Adds the learned bias (4·units,).
  InitializerArg kernel_initializer = "glorot_uniform";  ///< Initializer of the kernel.
  InitializerArg recurrent_initializer = "orthogonal";  ///< Initializer of the recurrent kernel.
  InitializerArg bias_initializer = "zeros";  ///< Initializer of the bias.
  bool unit_forget_bias = true;  ///< Adds 1 to the forget gate bias at initialisation.
  regularizers::RegularizerPtr kernel_regularizer = nullptr;  ///< Penalty on the kernel (none by default).
  regularizers::RegularizerPtr recurrent_regularizer = nullptr;  ///< Penalty on the recurrent kernel (none by default).
  regularizers::RegularizerPtr bias_regularizer = nullptr;  ///< Penalty on the bias (none by default).
  constraints::ConstraintPtr kernel_constraint = nullptr;  ///< Constraint on the kernel (none by default).
  constraints::ConstraintPtr recurrent_constraint = nullptr;  ///< Constraint on the recurrent kernel (none by default).
  constraints::ConstraintPtr bias_constraint = nullptr;  ///< Constraint on the bias (none by default).
  double dropout = 0.0;  ///< Fraction of the inputs dropped in training.
  double recurrent_dropout = 0.0;  ///< Fraction of the recurrent state dropped in training.
  std::optional<uint64_t> seed;  ///< Seed of the random draws; none: the global generator.
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(LSTMCellOptions, activation, recurrent_activation, use_bias, kernel_initializer, recurrent_initializer,
              bias_initializer, unit_forget_bias, kernel_regularizer, recurrent_regularizer, bias_regularizer,
              kernel_constraint, recurrent_constraint, bias_constraint, dropout, recurrent_dropout, seed)
};

/// The cell of LSTM (Keras's `LSTMCell`): z = x · kernel + h · recurrent_kernel + bias split
/// into i, f, c, o; i, f, o = recurrent_activation(...), c' = f * c + i * activation(z_c),
/// h' = o * activation(c'). The output is h'; the states are {h, c}, each (batch, units).
/// Weights: kernel (features, 4·units), recurrent_kernel (units, 4·units), bias (4·units,).
/// Defaults: tanh and sigmoid. Users create it through the handle `kiln::layers::LSTMCell(units, {...})`.
class LSTMCellImpl : public DropoutRNNCell {
 public:
  using Options = LSTMCellOptions;  ///< The options struct the constructor takes.
  /// `units` is the width of the output and of each state.
  LSTMCellImpl(int64_t units, LSTMCellOptions options = {});
  std::string class_name() const override { return "LSTMCell"; }
  Config get_config() const override;
  KILN_ARGS(LSTMCellImpl, units_)
  const LSTMCellOptions& options() const { return o_; }  ///< The options this layer was created with.
  std::vector<int64_t> state_size() const override { return {units_, units_}; }
  StepResult step(const Tensor& x, const std::vector<Tensor>& states, bool training) override;
  std::optional<std::vector<Tensor>> run_sequence(const Tensor& projected, const std::vector<Tensor>& states,
                                                  const Tensor& mask, bool zero_output_for_mask, bool training) override;
  Variable kernel() const { return kernel_; }  ///< (features, 4·units); undefined before build.
  Variable recurrent_kernel() const { return recurrent_kernel_; }  ///< (units, 4·units); undefined before build.
  Variable bias() const { return bias_; }  ///< (4·units,); undefined before build or without use_bias.

 protected:
  void build(const Shape& input_shape) override;
  using Layer::build;
  Tensor project(const Tensor& x) override;

 private:
  int64_t units_;
  LSTMCellOptions o_;
  activations::Activation activation_, recurrent_activation_;
  Variable kernel_, recurrent_kernel_, bias_;
};

KILN_LAYER_HANDLE(LSTMCell);

/// Options of LSTM (Keras's `LSTM` constructor arguments after units): the cell's and RNN's.
struct LSTMOptions {
  std::string activation = "tanh";  ///< Activation of the output; any name of kiln::activations::get.
  std::string recurrent_activation = "sigmoid";  ///< Activation of the gates; any name of kiln::activations::get.
  bool use_bias = true;  ///< Adds the learned bias (4·units,).
  InitializerArg kernel_initializer = "glorot_uniform";  ///< Initializer of the kernel.
  InitializerArg recurrent_initializer = "orthogonal";  ///< Initializer of the recurrent kernel.
  InitializerArg bias_initializer = "zeros";  ///< Initializer of the bias.
  bool unit_forget_bias = true;  ///< Adds 1 to the forget gate bias at initialisation.
  regularizers::RegularizerPtr kernel_regularizer = nullptr;  ///< Penalty on the kernel (none by default).
  regularizers::RegularizerPtr recurrent_regularizer = nullptr;  ///< Penalty on the recurrent kernel (none by default).
  regularizers::RegularizerPtr bias_regularizer = nullptr;  ///< Penalty on the bias (none by default).
  regularizers::RegularizerPtr activity_regularizer = nullptr;  ///< Penalty on the layer's output (none by default).
  constraints::ConstraintPtr kernel_constraint = nullptr;  ///< Constraint on the kernel (none by default).
  constraints::ConstraintPtr recurrent_constraint = nullptr;  ///< Constraint on the recurrent kernel (none by default).
  constraints::ConstraintPtr bias_constraint = nullptr;  ///< Constraint on the bias (none by default).
  double dropout = 0.0;  ///< Fraction of the inputs dropped in training.
  double recurrent_dropout = 0.0;  ///< Fraction of the recurrent state dropped in training.
  std::optional<uint64_t> seed;  ///< Seed of the random draws; none: the global generator.
  bool return_sequences = false;  ///< Return the output of every timestep, not only the last.
  bool return_state = false;  ///< Also return the final states: {output, state...}.
  bool go_backwards = false;  ///< Process the sequence in reverse time order.
  bool stateful = false;  ///< Carry the final states over to the next call, until reset_states().
  bool unroll = false;  ///< Stored for the config; the loop is the same either way.
  bool zero_output_for_mask = false;  ///< Masked steps output zeros instead of repeating the previous output.
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(LSTMOptions, return_sequences, return_state, go_backwards, stateful, unroll, zero_output_for_mask,
              activation, recurrent_activation, use_bias, kernel_initializer, recurrent_initializer, bias_initializer,
              unit_forget_bias, kernel_regularizer, recurrent_regularizer, bias_regularizer, activity_regularizer,
              kernel_constraint, recurrent_constraint, bias_constraint, dropout, recurrent_dropout, seed)
};

/// Long short-term memory, Keras's `LSTM`: RNN over an LSTMCell. (batch, time, features) ->
/// (batch, units), or (batch, time, units) with return_sequences; with return_state the
/// layer answers {output, h, c}. Defaults: tanh and sigmoid, unit_forget_bias, no dropout.
/// Users create it through the handle `kiln::layers::LSTM(units, {...})`.
class LSTMImpl : public RNNImpl {
 public:
  using Options = LSTMOptions;  ///< The options struct the constructor takes.
  /// `units` is the width of the output and of each state.
  LSTMImpl(int64_t units, LSTMOptions options = {});
  std::string class_name() const override { return "LSTM"; }
  Config get_config() const override;
  KILN_ARGS(LSTMImpl, units_)
  const LSTMOptions& options() const { return o_; }  ///< The options this layer was created with.
  int64_t units() const { return units_; }  ///< The width of the output and of each state.

 private:
  int64_t units_;
  LSTMOptions o_;
};

KILN_LAYER_HANDLE(LSTM);

}  // namespace kiln::layers

#pragma once
// SimpleRNN and SimpleRNNCell (Keras 3's formula and weight layout).
//   h' = activation(x · kernel + bias + h · recurrent_kernel);  the output is h'; one state.
//   kernel (features, units), recurrent_kernel (units, units), bias (units,)
//
//   L::SimpleRNN rnn(16, {.activation = "relu", .return_sequences = true});
#include <cstdint>
#include <optional>
#include <string>

#include "kiln/core/fields.h"
#include "kiln/layers/rnn.h"
#include "kiln/nn/activations.h"

namespace kiln::layers {

/// Options of SimpleRNNCell (Keras's `SimpleRNNCell` constructor arguments after units).
struct SimpleRNNCellOptions {
  std::string activation = "tanh";  ///< Activation of the output; any name of kiln::activations::get.
  bool use_bias = true;  ///< Adds the learned bias (units,).
  InitializerArg kernel_initializer = "glorot_uniform";  ///< Initializer of the kernel.
  InitializerArg recurrent_initializer = "orthogonal";  ///< Initializer of the recurrent kernel.
  InitializerArg bias_initializer = "zeros";  ///< Initializer of the bias.
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
  KILN_FIELDS(SimpleRNNCellOptions, activation, use_bias, kernel_initializer, recurrent_initializer,
              bias_initializer, kernel_regularizer, recurrent_regularizer, bias_regularizer,
              kernel_constraint, recurrent_constraint, bias_constraint, dropout, recurrent_dropout, seed)
};

/// The cell of SimpleRNN (Keras's `SimpleRNNCell`): one step h' = activation(x · kernel +
/// bias + h · recurrent_kernel); the output is h', the one state (batch, units). Weights:
/// kernel (features, units), recurrent_kernel (units, units), bias (units,). Defaults: tanh,
/// glorot_uniform kernel, orthogonal recurrent kernel. Users create it through the handle
/// `kiln::layers::SimpleRNNCell(units, {...})`, usually to pass to RNN.
class SimpleRNNCellImpl : public DropoutRNNCell {
 public:
  using Options = SimpleRNNCellOptions;  ///< The options struct the constructor takes.
  /// `units` is the width of the output and state.
  SimpleRNNCellImpl(int64_t units, SimpleRNNCellOptions options = {});
  std::string class_name() const override { return "SimpleRNNCell"; }
  Config get_config() const override;
  KILN_ARGS(SimpleRNNCellImpl, units_)
  const SimpleRNNCellOptions& options() const { return o_; }  ///< The options this layer was created with.
  std::vector<int64_t> state_size() const override { return {units_}; }
  StepResult step(const Tensor& x, const std::vector<Tensor>& states, bool training) override;
  std::optional<std::vector<Tensor>> run_sequence(const Tensor& projected, const std::vector<Tensor>& states,
                                                  const Tensor& mask, bool zero_output_for_mask, bool training) override;
  Variable kernel() const { return kernel_; }  ///< (features, units); undefined before build.
  Variable recurrent_kernel() const { return recurrent_kernel_; }  ///< (units, units); undefined before build.
  Variable bias() const { return bias_; }  ///< (units,); undefined before build or without use_bias.

 protected:
  void build(const Shape& input_shape) override;
  using Layer::build;
  Tensor project(const Tensor& x) override;

 private:
  int64_t units_;
  SimpleRNNCellOptions o_;
  activations::Activation activation_;
  Variable kernel_, recurrent_kernel_, bias_;
};

KILN_LAYER_HANDLE(SimpleRNNCell);

/// Options of SimpleRNN (Keras's `SimpleRNN` constructor arguments after units): the cell's and RNN's.
struct SimpleRNNOptions {
  std::string activation = "tanh";  ///< Activation of the output; any name of kiln::activations::get.
  bool use_bias = true;  ///< Adds the learned bias (units,).
  InitializerArg kernel_initializer = "glorot_uniform";  ///< Initializer of the kernel.
  InitializerArg recurrent_initializer = "orthogonal";  ///< Initializer of the recurrent kernel.
  InitializerArg bias_initializer = "zeros";  ///< Initializer of the bias.
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
  KILN_FIELDS(SimpleRNNOptions, return_sequences, return_state, go_backwards, stateful, unroll, zero_output_for_mask,
              activation, use_bias, kernel_initializer, recurrent_initializer, bias_initializer,
              kernel_regularizer, recurrent_regularizer, bias_regularizer, activity_regularizer,
              kernel_constraint, recurrent_constraint, bias_constraint, dropout, recurrent_dropout, seed)
};

/// A fully connected RNN, Keras's `SimpleRNN`: RNN over a SimpleRNNCell, h' = activation(x ·
/// kernel + bias + h · recurrent_kernel). (batch, time, features) -> (batch, units), or
/// (batch, time, units) with return_sequences. Defaults: tanh, no dropout, last output only.
/// Users create it through the handle `kiln::layers::SimpleRNN(units, {...})`.
class SimpleRNNImpl : public RNNImpl {
 public:
  using Options = SimpleRNNOptions;  ///< The options struct the constructor takes.
  /// `units` is the width of the output and state.
  SimpleRNNImpl(int64_t units, SimpleRNNOptions options = {});
  std::string class_name() const override { return "SimpleRNN"; }
  Config get_config() const override;
  KILN_ARGS(SimpleRNNImpl, units_)
  const SimpleRNNOptions& options() const { return o_; }  ///< The options this layer was created with.
  int64_t units() const { return units_; }  ///< The width of the output and state.

 private:
  int64_t units_;
  SimpleRNNOptions o_;
};

KILN_LAYER_HANDLE(SimpleRNN);

}  // namespace kiln::layers

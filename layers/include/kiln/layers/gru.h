#pragma once
// GRU and GRUCell (Keras 3's formulas and weight layout; gates z, r, h).
//   x_z, x_r, x_h = x · kernel + input_bias;  z = recurrent_activation(x_z + h · U_z + b_z)
//   r = recurrent_activation(x_r + h · U_r + b_r)
//   reset_after (default): hh = activation(x_h + r * (h · U_h + b_h))
//   else:                  hh = activation(x_h + (r * h) · U_h)
//   h' = z * h + (1 - z) * hh;  the output is h'; one state.
//   kernel (features, 3·units), recurrent_kernel (units, 3·units); bias (2, 3·units)
//   with reset_after (input and recurrent biases), else (3·units,).
//
//   L::GRU gru(16, {.return_sequences = true, .reset_after = false});
#include <cstdint>
#include <optional>
#include <string>

#include "kiln/core/fields.h"
#include "kiln/layers/rnn.h"
#include "kiln/nn/activations.h"

namespace kiln::layers {

/// Options of GRUCell (Keras's `GRUCell` constructor arguments after units).
struct GRUCellOptions {
  std::string activation = "tanh";  ///< Activation of the output; any name of kiln::activations::get.
  std::string recurrent_activation = "sigmoid";  ///< Activation of the gates; any name of kiln::activations::get.
  bool use_bias = true;  ///< Adds the learned bias: (2, 3·units) with reset_after, else (3·units,).
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
  bool reset_after = true;  ///< Apply the reset gate after the recurrent matmul (Keras 3 and CuDNN's convention).
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(GRUCellOptions, activation, recurrent_activation, use_bias, kernel_initializer, recurrent_initializer,
              bias_initializer, kernel_regularizer, recurrent_regularizer, bias_regularizer,
              kernel_constraint, recurrent_constraint, bias_constraint, dropout, recurrent_dropout, reset_after, seed)
};

/// The cell of GRU (Keras's `GRUCell`, gates z, r, h): z and r = recurrent_activation(x ·
/// kernel + h · recurrent_kernel + biases), hh = activation(x_h + r * (h · U_h + b_h)) with
/// reset_after (the default), else activation(x_h + (r * h) · U_h); h' = z * h + (1 - z) * hh.
/// The output is h', the one state (batch, units). Weights: kernel (features, 3·units),
/// recurrent_kernel (units, 3·units), bias (2, 3·units) with reset_after, else (3·units,).
/// Users create it through the handle `kiln::layers::GRUCell(units, {...})`.
class GRUCellImpl : public DropoutRNNCell {
 public:
  using Options = GRUCellOptions;  ///< The options struct the constructor takes.
  /// `units` is the width of the output and state.
  GRUCellImpl(int64_t units, GRUCellOptions options = {});
  std::string class_name() const override { return "GRUCell"; }
  Config get_config() const override;
  KILN_ARGS(GRUCellImpl, units_)
  const GRUCellOptions& options() const { return o_; }  ///< The options this layer was created with.
  std::vector<int64_t> state_size() const override { return {units_}; }
  StepResult step(const Tensor& x, const std::vector<Tensor>& states, bool training) override;
  std::optional<std::vector<Tensor>> run_sequence(const Tensor& projected, const std::vector<Tensor>& states,
                                                  const Tensor& mask, bool zero_output_for_mask, bool training) override;
  Variable kernel() const { return kernel_; }  ///< (features, 3·units); undefined before build.
  Variable recurrent_kernel() const { return recurrent_kernel_; }  ///< (units, 3·units); undefined before build.
  Variable bias() const { return bias_; }  ///< (2, 3·units) or (3·units,); undefined before build or without use_bias.

 protected:
  void build(const Shape& input_shape) override;
  using Layer::build;
  Tensor project(const Tensor& x) override;

 private:
  int64_t units_;
  GRUCellOptions o_;
  activations::Activation activation_, recurrent_activation_;
  Variable kernel_, recurrent_kernel_, bias_;
};

KILN_LAYER_HANDLE(GRUCell);

/// Options of GRU (Keras's `GRU` constructor arguments after units): the cell's and RNN's.
struct GRUOptions {
  std::string activation = "tanh";  ///< Activation of the output; any name of kiln::activations::get.
  std::string recurrent_activation = "sigmoid";  ///< Activation of the gates; any name of kiln::activations::get.
  bool use_bias = true;  ///< Adds the learned bias: (2, 3·units) with reset_after, else (3·units,).
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
  bool reset_after = true;  ///< Apply the reset gate after the recurrent matmul (Keras 3 and CuDNN's convention).
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(GRUOptions, return_sequences, return_state, go_backwards, stateful, unroll, zero_output_for_mask,
              activation, recurrent_activation, use_bias, kernel_initializer, recurrent_initializer, bias_initializer,
              kernel_regularizer, recurrent_regularizer, bias_regularizer, activity_regularizer,
              kernel_constraint, recurrent_constraint, bias_constraint, dropout, recurrent_dropout, reset_after, seed)
};

/// Gated recurrent unit, Keras's `GRU`: RNN over a GRUCell. (batch, time, features) ->
/// (batch, units), or (batch, time, units) with return_sequences. Defaults: tanh and
/// sigmoid, reset_after, no dropout. Users create it through the handle `kiln::layers::GRU(units, {...})`.
class GRUImpl : public RNNImpl {
 public:
  using Options = GRUOptions;  ///< The options struct the constructor takes.
  /// `units` is the width of the output and state.
  GRUImpl(int64_t units, GRUOptions options = {});
  std::string class_name() const override { return "GRU"; }
  Config get_config() const override;
  KILN_ARGS(GRUImpl, units_)
  const GRUOptions& options() const { return o_; }  ///< The options this layer was created with.
  int64_t units() const { return units_; }  ///< The width of the output and state.

 private:
  int64_t units_;
  GRUOptions o_;
};

KILN_LAYER_HANDLE(GRU);

}  // namespace kiln::layers

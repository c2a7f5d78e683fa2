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

struct LSTMCellOptions {
  std::string activation = "tanh";
  std::string recurrent_activation = "sigmoid";
  bool use_bias = true;
  InitializerArg kernel_initializer = "glorot_uniform";
  InitializerArg recurrent_initializer = "orthogonal";
  InitializerArg bias_initializer = "zeros";
  bool unit_forget_bias = true;
  regularizers::RegularizerPtr kernel_regularizer = nullptr;
  regularizers::RegularizerPtr recurrent_regularizer = nullptr;
  regularizers::RegularizerPtr bias_regularizer = nullptr;
  constraints::ConstraintPtr kernel_constraint = nullptr;
  constraints::ConstraintPtr recurrent_constraint = nullptr;
  constraints::ConstraintPtr bias_constraint = nullptr;
  double dropout = 0.0;
  double recurrent_dropout = 0.0;
  std::optional<uint64_t> seed;
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(LSTMCellOptions, activation, recurrent_activation, use_bias, kernel_initializer, recurrent_initializer,
              bias_initializer, unit_forget_bias, kernel_regularizer, recurrent_regularizer, bias_regularizer,
              kernel_constraint, recurrent_constraint, bias_constraint, dropout, recurrent_dropout, seed)
};

class LSTMCellImpl : public DropoutRNNCell {
 public:
  using Options = LSTMCellOptions;
  LSTMCellImpl(int64_t units, LSTMCellOptions options = {});
  std::string class_name() const override { return "LSTMCell"; }
  Config get_config() const override;
  KILN_ARGS(LSTMCellImpl, units_)
  const LSTMCellOptions& options() const { return o_; }
  std::vector<int64_t> state_size() const override { return {units_, units_}; }
  StepResult step(const Tensor& x, const std::vector<Tensor>& states, bool training) override;
  std::optional<std::vector<Tensor>> run_sequence(const Tensor& projected, const std::vector<Tensor>& states,
                                                  const Tensor& mask, bool zero_output_for_mask, bool training) override;
  Variable kernel() const { return kernel_; }
  Variable recurrent_kernel() const { return recurrent_kernel_; }
  Variable bias() const { return bias_; }

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

struct LSTMOptions {
  std::string activation = "tanh";
  std::string recurrent_activation = "sigmoid";
  bool use_bias = true;
  InitializerArg kernel_initializer = "glorot_uniform";
  InitializerArg recurrent_initializer = "orthogonal";
  InitializerArg bias_initializer = "zeros";
  bool unit_forget_bias = true;
  regularizers::RegularizerPtr kernel_regularizer = nullptr;
  regularizers::RegularizerPtr recurrent_regularizer = nullptr;
  regularizers::RegularizerPtr bias_regularizer = nullptr;
  regularizers::RegularizerPtr activity_regularizer = nullptr;
  constraints::ConstraintPtr kernel_constraint = nullptr;
  constraints::ConstraintPtr recurrent_constraint = nullptr;
  constraints::ConstraintPtr bias_constraint = nullptr;
  double dropout = 0.0;
  double recurrent_dropout = 0.0;
  std::optional<uint64_t> seed;
  bool return_sequences = false;
  bool return_state = false;
  bool go_backwards = false;
  bool stateful = false;
  bool unroll = false;
  bool zero_output_for_mask = false;
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(LSTMOptions, return_sequences, return_state, go_backwards, stateful, unroll, zero_output_for_mask,
              activation, recurrent_activation, use_bias, kernel_initializer, recurrent_initializer, bias_initializer,
              unit_forget_bias, kernel_regularizer, recurrent_regularizer, bias_regularizer, activity_regularizer,
              kernel_constraint, recurrent_constraint, bias_constraint, dropout, recurrent_dropout, seed)
};

class LSTMImpl : public RNNImpl {
 public:
  using Options = LSTMOptions;
  LSTMImpl(int64_t units, LSTMOptions options = {});
  std::string class_name() const override { return "LSTM"; }
  Config get_config() const override;
  KILN_ARGS(LSTMImpl, units_)
  const LSTMOptions& options() const { return o_; }
  int64_t units() const { return units_; }

 private:
  int64_t units_;
  LSTMOptions o_;
};

KILN_LAYER_HANDLE(LSTM);

}  // namespace kiln::layers

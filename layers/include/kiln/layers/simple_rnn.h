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

struct SimpleRNNCellOptions {
  std::string activation = "tanh";
  bool use_bias = true;
  InitializerArg kernel_initializer = "glorot_uniform";
  InitializerArg recurrent_initializer = "orthogonal";
  InitializerArg bias_initializer = "zeros";
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
  KILN_FIELDS(SimpleRNNCellOptions, activation, use_bias, kernel_initializer, recurrent_initializer,
              bias_initializer, kernel_regularizer, recurrent_regularizer, bias_regularizer,
              kernel_constraint, recurrent_constraint, bias_constraint, dropout, recurrent_dropout, seed)
};

class SimpleRNNCellImpl : public DropoutRNNCell {
 public:
  using Options = SimpleRNNCellOptions;
  SimpleRNNCellImpl(int64_t units, SimpleRNNCellOptions options = {});
  std::string class_name() const override { return "SimpleRNNCell"; }
  Config get_config() const override;
  KILN_ARGS(SimpleRNNCellImpl, units_)
  const SimpleRNNCellOptions& options() const { return o_; }
  std::vector<int64_t> state_size() const override { return {units_}; }
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
  SimpleRNNCellOptions o_;
  activations::Activation activation_;
  Variable kernel_, recurrent_kernel_, bias_;
};

KILN_LAYER_HANDLE(SimpleRNNCell);

struct SimpleRNNOptions {
  std::string activation = "tanh";
  bool use_bias = true;
  InitializerArg kernel_initializer = "glorot_uniform";
  InitializerArg recurrent_initializer = "orthogonal";
  InitializerArg bias_initializer = "zeros";
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
  KILN_FIELDS(SimpleRNNOptions, return_sequences, return_state, go_backwards, stateful, unroll, zero_output_for_mask,
              activation, use_bias, kernel_initializer, recurrent_initializer, bias_initializer,
              kernel_regularizer, recurrent_regularizer, bias_regularizer, activity_regularizer,
              kernel_constraint, recurrent_constraint, bias_constraint, dropout, recurrent_dropout, seed)
};

class SimpleRNNImpl : public RNNImpl {
 public:
  using Options = SimpleRNNOptions;
  SimpleRNNImpl(int64_t units, SimpleRNNOptions options = {});
  std::string class_name() const override { return "SimpleRNN"; }
  Config get_config() const override;
  KILN_ARGS(SimpleRNNImpl, units_)
  const SimpleRNNOptions& options() const { return o_; }
  int64_t units() const { return units_; }

 private:
  int64_t units_;
  SimpleRNNOptions o_;
};

KILN_LAYER_HANDLE(SimpleRNN);

}  // namespace kiln::layers

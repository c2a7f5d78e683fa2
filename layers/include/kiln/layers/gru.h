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

struct GRUCellOptions {
  std::string activation = "tanh";
  std::string recurrent_activation = "sigmoid";
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
  bool reset_after = true;
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(GRUCellOptions, activation, recurrent_activation, use_bias, kernel_initializer, recurrent_initializer,
              bias_initializer, kernel_regularizer, recurrent_regularizer, bias_regularizer,
              kernel_constraint, recurrent_constraint, bias_constraint, dropout, recurrent_dropout, reset_after, seed)
};

class GRUCellImpl : public DropoutRNNCell {
 public:
  using Options = GRUCellOptions;
  GRUCellImpl(int64_t units, GRUCellOptions options = {});
  std::string class_name() const override { return "GRUCell"; }
  Config get_config() const override;
  KILN_ARGS(GRUCellImpl, units_)
  const GRUCellOptions& options() const { return o_; }
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
  GRUCellOptions o_;
  activations::Activation activation_, recurrent_activation_;
  Variable kernel_, recurrent_kernel_, bias_;
};

KILN_LAYER_HANDLE(GRUCell);

struct GRUOptions {
  std::string activation = "tanh";
  std::string recurrent_activation = "sigmoid";
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
  bool reset_after = true;
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(GRUOptions, return_sequences, return_state, go_backwards, stateful, unroll, zero_output_for_mask,
              activation, recurrent_activation, use_bias, kernel_initializer, recurrent_initializer, bias_initializer,
              kernel_regularizer, recurrent_regularizer, bias_regularizer, activity_regularizer,
              kernel_constraint, recurrent_constraint, bias_constraint, dropout, recurrent_dropout, reset_after, seed)
};

class GRUImpl : public RNNImpl {
 public:
  using Options = GRUOptions;
  GRUImpl(int64_t units, GRUOptions options = {});
  std::string class_name() const override { return "GRU"; }
  Config get_config() const override;
  KILN_ARGS(GRUImpl, units_)
  const GRUOptions& options() const { return o_; }
  int64_t units() const { return units_; }

 private:
  int64_t units_;
  GRUOptions o_;
};

KILN_LAYER_HANDLE(GRU);

}  // namespace kiln::layers

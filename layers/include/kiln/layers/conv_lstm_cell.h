#pragma once
// ConvLSTMCell<N>: one step of ConvLSTM1D/2D/3D (Keras 3's ConvLSTMCell). An
// LSTM whose matrix products are convolutions:
//   z = conv(x, kernel) + bias + conv_same(h, recurrent_kernel), split in four on
//   the channel axis: i, f, c, o
//   i, f, o = recurrent_activation(z_i, z_f, z_o);  c' = f * c + i * activation(z_c)
//   h' = o * activation(c');  the output is h'; states {h, c}
//   The input convolution uses the cell's strides, padding and dilation_rate;
//   the recurrent one is "same" with unit strides, so the states keep the
//   input convolution's output size.
//   kernel (*kernel_size, C_in, 4·filters), recurrent_kernel
//   (*kernel_size, filters, 4·filters), bias (4·filters,); unit_forget_bias
//   starts the forget gate's bias at 1.
//   x: (batch, *spatial, C_in) (channels_last) or (batch, C_in, *spatial);
//   h, c: (batch, *out_spatial, filters), or (batch, filters, *out_spatial).
// dropout and recurrent_dropout draw one mask per gate (four), once per sequence.
// The layers (kiln/layers/conv_lstm.h) run it through RNN; its input
// convolution then runs once for every timestep of the sequence together.
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/layers/common.h"
#include "kiln/layers/rnn_cell.h"
#include "kiln/nn/activations.h"

namespace kiln::layers {

/// The per-axis sizes of ConvLSTM<N>: an int for 1D, an int or pair for 2D, one
/// int or three for 3D (as Conv3D).
template <int N>
using ConvLSTMSize = std::conditional_t<N == 1, Size1, std::conditional_t<N == 2, Size2, std::vector<int>>>;

template <int N>
struct ConvLSTMCellOptions {
  ConvLSTMSize<N> strides{1};  // 3D: {1} or three values
  std::string padding = "valid";  // "valid" or "same"
  std::string data_format = "channels_last";
  ConvLSTMSize<N> dilation_rate{1};
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
  KILN_FIELDS(ConvLSTMCellOptions, strides, padding, data_format, dilation_rate, activation, recurrent_activation,
              use_bias, kernel_initializer, recurrent_initializer, bias_initializer, unit_forget_bias,
              kernel_regularizer, recurrent_regularizer, bias_regularizer, kernel_constraint, recurrent_constraint,
              bias_constraint, dropout, recurrent_dropout, seed)
};

template <int N>
class ConvLSTMCellImpl : public RNNCell {
 public:
  using Options = ConvLSTMCellOptions<N>;
  using Size = ConvLSTMSize<N>;
  /// `cls` names the layer class in argument errors (ConvLSTM2D).
  ConvLSTMCellImpl(int64_t filters, Size kernel_size, Options options = {}, std::string cls = "ConvLSTMCell");
  std::string class_name() const override { return "ConvLSTMCell"; }
  Config get_config() const override;
  KILN_ARGS(ConvLSTMCellImpl, filters_, kernel_size_)
  const Options& options() const { return o_; }
  int64_t filters() const { return filters_; }
  Size kernel_size() const { return kernel_size_; }

  std::vector<int64_t> state_size() const override { return {filters_, filters_}; }
  /// The shape of h and c (and of the output) for a step input of shape `step_input`.
  Shape state_shape(const Shape& step_input) const;
  std::vector<Tensor> initial_state(const Shape& step_input) override;
  StepResult step(const Tensor& x, const std::vector<Tensor>& states, bool training) override;
  Tensor begin_sequence(const Tensor& sequence, const std::vector<Tensor>& states, bool training) override;
  void end_sequence() override;

  Variable kernel() const { return kernel_; }
  Variable recurrent_kernel() const { return recurrent_kernel_; }
  Variable bias() const { return bias_; }

 protected:
  void build(const Shape& input_shape) override;
  using Layer::build;

 private:
  bool channels_first() const { return o_.data_format == "channels_first"; }
  /// conv(x, kernel) + bias for x (n, *spatial, C_in) in the data format:
  /// `inputs` holds one x for all four gates, or one per gate (each under its
  /// own dropout mask). The result is channels_last, (n, *out_spatial, 4·filters).
  Tensor input_conv(const std::vector<Tensor>& inputs) const;
  /// conv_same(h, recurrent_kernel) for h in the data format, one h for all
  /// gates or one per gate; channels_last.
  Tensor recurrent_conv(const std::vector<Tensor>& hs) const;
  /// Four dropout masks shaped like `like`, one per gate.
  std::vector<Tensor> dropout_masks(const Tensor& like, double rate);

  int64_t filters_;
  Size kernel_size_;
  Options o_;
  std::vector<int64_t> kernel_dims_, strides_, dilation_;  // one per spatial axis
  activations::Activation activation_, recurrent_activation_;
  Variable kernel_, recurrent_kernel_, bias_;
  // Drawn by begin_sequence() for one sequence: the input masks (applied
  // there) and the recurrent ones (applied by step()).
  bool projected_ = false;
  std::vector<Tensor> recurrent_masks_;
  uint64_t draws_ = 0;
};

extern template class ConvLSTMCellImpl<1>;
extern template class ConvLSTMCellImpl<2>;
extern template class ConvLSTMCellImpl<3>;

}  // namespace kiln::layers

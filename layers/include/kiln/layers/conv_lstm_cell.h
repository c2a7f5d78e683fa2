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

/// Options of ConvLSTMCell (Keras's `ConvLSTMCell` constructor arguments after filters and kernel_size).
template <int N>
struct ConvLSTMCellOptions {
  ConvLSTMSize<N> strides{1};  ///< Step of the input convolution per spatial axis; 3D: one int or three.
  std::string padding = "valid";  ///< Padding of the input convolution: "valid" or "same".
  std::string data_format = "channels_last";  ///< "channels_last" or "channels_first".
  ConvLSTMSize<N> dilation_rate{1};  ///< Spacing between the input kernel's taps (1: dense); 3D: one int or three.
  std::string activation = "tanh";  ///< Activation of the output; any name of kiln::activations::get.
  std::string recurrent_activation = "sigmoid";  ///< Activation of the gates; any name of kiln::activations::get.
  bool use_bias = true;  ///< Adds the learned bias (4·filters,).
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
  KILN_FIELDS(ConvLSTMCellOptions, strides, padding, data_format, dilation_rate, activation, recurrent_activation,
              use_bias, kernel_initializer, recurrent_initializer, bias_initializer, unit_forget_bias,
              kernel_regularizer, recurrent_regularizer, bias_regularizer, kernel_constraint, recurrent_constraint,
              bias_constraint, dropout, recurrent_dropout, seed)
};

/// One step of ConvLSTM1D/2D/3D (Keras 3's `ConvLSTMCell`): an LSTM whose matrix products
/// are convolutions. z = conv(x, kernel) + bias + conv_same(h, recurrent_kernel), split in
/// i, f, c, o on the channel axis; c' = f * c + i * activation(z_c), h' = o * activation(c').
/// The output is h'; states {h, c}, each (batch, *out_spatial, filters) in channels_last.
/// Weights: kernel (*kernel_size, C_in, 4·filters), recurrent_kernel (*kernel_size, filters,
/// 4·filters), bias (4·filters,). The ConvLSTM layers run it through RNN.
template <int N>
class ConvLSTMCellImpl : public RNNCell {
 public:
  using Options = ConvLSTMCellOptions<N>;  ///< The options struct the constructor takes.
  using Size = ConvLSTMSize<N>;  ///< The per-axis size type (see ConvLSTMSize).
  /// `cls` names the layer class in argument errors (ConvLSTM2D).
  ConvLSTMCellImpl(int64_t filters, Size kernel_size, Options options = {}, std::string cls = "ConvLSTMCell");
  std::string class_name() const override { return "ConvLSTMCell"; }
  Config get_config() const override;
  KILN_ARGS(ConvLSTMCellImpl, filters_, kernel_size_)
  const Options& options() const { return o_; }  ///< The options this layer was created with.
  int64_t filters() const { return filters_; }  ///< The number of output channels (of h and c).
  Size kernel_size() const { return kernel_size_; }  ///< The kernel size, one value per spatial axis.

  std::vector<int64_t> state_size() const override { return {filters_, filters_}; }
  /// The shape of h and c (and of the output) for a step input of shape `step_input`.
  Shape state_shape(const Shape& step_input) const;
  std::vector<Tensor> initial_state(const Shape& step_input) override;
  StepResult step(const Tensor& x, const std::vector<Tensor>& states, bool training) override;
  Tensor begin_sequence(const Tensor& sequence, const std::vector<Tensor>& states, bool training) override;
  void end_sequence() override;

  Variable kernel() const { return kernel_; }  ///< (*kernel_size, C_in, 4·filters); undefined before build.
  /// (*kernel_size, filters, 4·filters); undefined before build.
  Variable recurrent_kernel() const { return recurrent_kernel_; }
  Variable bias() const { return bias_; }  ///< (4·filters,); undefined before build or without use_bias.

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

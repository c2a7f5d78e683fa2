#pragma once
// ConvLSTM1D, ConvLSTM2D and ConvLSTM3D (Keras 3): RNN over a ConvLSTMCell
// (kiln/layers/conv_lstm_cell.h has the formulas and weight shapes), with
// every RNN option (masking, initial states, return_state, go_backwards,
// stateful).
//   x: (batch, time, *spatial, C_in) (channels_last) or (batch, time, C_in, *spatial)
//   -> (batch, *out_spatial, filters), or (batch, time, *out_spatial, filters) with
//   return_sequences; return_state adds the final h and c, each shaped like one
//   output step. out_spatial follows the input convolution (kernel_size,
//   strides, padding, dilation_rate), as in ConvND.
//   Weights: conv_lstm_cell/kernel, conv_lstm_cell/recurrent_kernel, conv_lstm_cell/bias.
//
//   L::ConvLSTM2D(16, 3, {.padding = "same", .return_sequences = true});  // (b, t, 32, 32, 3) -> (b, t, 32, 32, 16)
//   L::ConvLSTM1D(8, 5);                                                  // (b, t, 40, 2) -> (b, 36, 8)
//   L::ConvLSTM3D(4, {3}, {.strides = {2, 2, 2}});                         // kernel 3x3x3
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/layers/conv_lstm_cell.h"
#include "kiln/layers/rnn.h"

namespace kiln::layers {

/// Options of ConvLSTM1D/2D/3D (Keras's constructor arguments after filters and kernel_size):
/// the cell's and RNN's.
template <int N>
struct ConvLSTMOptions {
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
  KILN_FIELDS(ConvLSTMOptions, return_sequences, return_state, go_backwards, stateful, unroll, zero_output_for_mask,
              strides, padding, data_format, dilation_rate, activation, recurrent_activation, use_bias,
              kernel_initializer, recurrent_initializer, bias_initializer, unit_forget_bias, kernel_regularizer,
              recurrent_regularizer, bias_regularizer, activity_regularizer, kernel_constraint, recurrent_constraint,
              bias_constraint, dropout, recurrent_dropout, seed)
};

/// What ConvLSTM1D, ConvLSTM2D and ConvLSTM3D share (Keras 3): RNN over a ConvLSTMCell with
/// every RNN option. x: (batch, time, *spatial, C_in) (channels_last) -> (batch, *out_spatial,
/// filters), or (batch, time, *out_spatial, filters) with return_sequences; return_state adds
/// the final h and c. out_spatial follows the input convolution (kernel_size, strides,
/// padding, dilation_rate). Defaults: tanh and sigmoid, strides 1, "valid".
template <int N>
class ConvLSTMImpl : public RNNImpl {
 public:
  using Options = ConvLSTMOptions<N>;  ///< The options struct the constructor takes.
  using Size = ConvLSTMSize<N>;  ///< The per-axis size type (see ConvLSTMSize).
  /// The config: filters, kernel_size and every option, zero_output_for_mask as now set.
  Config get_config() const override;
  KILN_ARGS(ConvLSTMImpl, filters_, kernel_size_)
  const Options& options() const { return o_; }  ///< The options this layer was created with.
  int64_t filters() const { return filters_; }  ///< The number of output channels.
  /// As normalised by the cell: N values (one int given for 3D stands for three).
  Size kernel_size() const { return kernel_size_; }
  /// The ConvLSTMCell this layer runs.
  ConvLSTMCellImpl<N>& conv_cell() const { return static_cast<ConvLSTMCellImpl<N>&>(*cell()); }

  /// RNNImpl's output shapes; the single-input form runs the list form below.
  using RNNImpl::compute_output_shape;
  /// (batch, time, *spatial, C_in) -> the output, plus h and c with return_state.
  std::vector<Shape> compute_output_shape(const std::vector<Shape>& input_shapes) override;

 protected:
  /// `cls` is the Keras class name, for messages.
  ConvLSTMImpl(const std::string& cls, int64_t filters, Size kernel_size, Options options);

 private:
  int64_t filters_;
  Size kernel_size_;
  Options o_;
};

extern template class ConvLSTMImpl<1>;
extern template class ConvLSTMImpl<2>;
extern template class ConvLSTMImpl<3>;

/// Keras's `ConvLSTM1D`: (batch, time, steps, C_in) -> (batch, new_steps, filters), or
/// (batch, time, new_steps, filters) with return_sequences. Users create it through the
/// handle `kiln::layers::ConvLSTM1D(filters, kernel_size, {...})`.
class ConvLSTM1DImpl : public ConvLSTMImpl<1> {
 public:
  /// `filters` output channels; `kernel_size` one int.
  ConvLSTM1DImpl(int64_t filters, Size1 kernel_size, Options options = {});
  std::string class_name() const override { return "ConvLSTM1D"; }
};

/// Keras's `ConvLSTM2D`: (batch, time, H, W, C_in) -> (batch, OH, OW, filters), or
/// (batch, time, OH, OW, filters) with return_sequences. Users create it through the
/// handle `kiln::layers::ConvLSTM2D(filters, kernel_size, {...})`.
class ConvLSTM2DImpl : public ConvLSTMImpl<2> {
 public:
  /// `filters` output channels; `kernel_size` one int or (kh, kw).
  ConvLSTM2DImpl(int64_t filters, Size2 kernel_size, Options options = {});
  std::string class_name() const override { return "ConvLSTM2D"; }
};

/// Keras's `ConvLSTM3D`: (batch, time, D, H, W, C_in) -> (batch, OD, OH, OW, filters), or
/// with the time axis under return_sequences. Users create it through the handle
/// `kiln::layers::ConvLSTM3D(filters, kernel_size, {...})`.
class ConvLSTM3DImpl : public ConvLSTMImpl<3> {
 public:
  /// `filters` output channels; `kernel_size` one int for every axis or three.
  ConvLSTM3DImpl(int64_t filters, std::vector<int> kernel_size, Options options = {});
  std::string class_name() const override { return "ConvLSTM3D"; }
};

KILN_LAYER_HANDLE(ConvLSTM1D);
KILN_LAYER_HANDLE(ConvLSTM2D);
KILN_LAYER_HANDLE(ConvLSTM3D);

}  // namespace kiln::layers

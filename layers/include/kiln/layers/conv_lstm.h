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

template <int N>
struct ConvLSTMOptions {
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
  KILN_FIELDS(ConvLSTMOptions, return_sequences, return_state, go_backwards, stateful, unroll, zero_output_for_mask,
              strides, padding, data_format, dilation_rate, activation, recurrent_activation, use_bias,
              kernel_initializer, recurrent_initializer, bias_initializer, unit_forget_bias, kernel_regularizer,
              recurrent_regularizer, bias_regularizer, activity_regularizer, kernel_constraint, recurrent_constraint,
              bias_constraint, dropout, recurrent_dropout, seed)
};

template <int N>
class ConvLSTMImpl : public RNNImpl {
 public:
  using Options = ConvLSTMOptions<N>;
  using Size = ConvLSTMSize<N>;
  Config get_config() const override;
  KILN_ARGS(ConvLSTMImpl, filters_, kernel_size_)
  const Options& options() const { return o_; }
  int64_t filters() const { return filters_; }
  /// As normalised by the cell: N values (one int given for 3D stands for three).
  Size kernel_size() const { return kernel_size_; }
  ConvLSTMCellImpl<N>& conv_cell() const { return static_cast<ConvLSTMCellImpl<N>&>(*cell()); }

  using RNNImpl::compute_output_shape;
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

class ConvLSTM1DImpl : public ConvLSTMImpl<1> {
 public:
  ConvLSTM1DImpl(int64_t filters, Size1 kernel_size, Options options = {});
  std::string class_name() const override { return "ConvLSTM1D"; }
};

class ConvLSTM2DImpl : public ConvLSTMImpl<2> {
 public:
  ConvLSTM2DImpl(int64_t filters, Size2 kernel_size, Options options = {});
  std::string class_name() const override { return "ConvLSTM2D"; }
};

class ConvLSTM3DImpl : public ConvLSTMImpl<3> {
 public:
  ConvLSTM3DImpl(int64_t filters, std::vector<int> kernel_size, Options options = {});
  std::string class_name() const override { return "ConvLSTM3D"; }
};

KILN_LAYER_HANDLE(ConvLSTM1D);
KILN_LAYER_HANDLE(ConvLSTM2D);
KILN_LAYER_HANDLE(ConvLSTM3D);

}  // namespace kiln::layers

#pragma once
// The built-in recurrent layers' options hold their cell's keys and the RNN
// keys in one struct (Keras's LSTM(units, ..., return_sequences=...)); these
// split it into the cell's options and RNNOptions.
#include <string>

#include "kiln/layers/rnn.h"

namespace kiln::layers::detail {

template <class Cell, class Opts>
Cell cell_options_from(const Opts& o, const std::string& cell_name) {
  Cell c;
  c.activation = o.activation;
  c.use_bias = o.use_bias;
  c.kernel_initializer = o.kernel_initializer;
  c.recurrent_initializer = o.recurrent_initializer;
  c.bias_initializer = o.bias_initializer;
  c.kernel_regularizer = o.kernel_regularizer;
  c.recurrent_regularizer = o.recurrent_regularizer;
  c.bias_regularizer = o.bias_regularizer;
  c.kernel_constraint = o.kernel_constraint;
  c.recurrent_constraint = o.recurrent_constraint;
  c.bias_constraint = o.bias_constraint;
  c.dropout = o.dropout;
  c.recurrent_dropout = o.recurrent_dropout;
  if constexpr (requires { c.recurrent_activation; }) c.recurrent_activation = o.recurrent_activation;
  if constexpr (requires { c.unit_forget_bias; }) c.unit_forget_bias = o.unit_forget_bias;
  if constexpr (requires { c.reset_after; }) c.reset_after = o.reset_after;
  if constexpr (requires { o.seed; }) c.seed = o.seed;
  if constexpr (requires { c.strides; }) {  // the convolutional cells
    c.strides = o.strides;
    c.padding = o.padding;
    c.data_format = o.data_format;
    c.dilation_rate = o.dilation_rate;
  }
  c.name = cell_name;
  c.trainable = o.trainable;
  c.dtype = o.dtype;
  return c;
}

template <class Opts>
RNNOptions rnn_options_from(const Opts& o) {
  RNNOptions r;
  r.return_sequences = o.return_sequences;
  r.return_state = o.return_state;
  r.go_backwards = o.go_backwards;
  r.stateful = o.stateful;
  r.unroll = o.unroll;
  r.zero_output_for_mask = o.zero_output_for_mask;
  r.name = o.name;
  r.trainable = o.trainable;
  r.dtype = o.dtype;
  r.input_shape = o.input_shape;
  return r;
}

}  // namespace kiln::layers::detail

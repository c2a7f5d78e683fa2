// The recurrent layers, their cells, the wrappers and Masking through the one
// harness (layer_harness.h): finite-difference gradients, config round trip,
// .keras and .h5 round trips, and an SGD step.
#include <doctest/doctest.h>

#include "kiln/layers.h"
#include "kiln/ops/ops.h"
#include "kiln/nn/regularizers.h"
#include "layer_harness.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_harness_recurrent {

namespace k = kiln;
namespace L = kiln::layers;
using k::testing::check_layer;
using k::testing::LayerCase;

namespace {
template <class H>
k::LayerPtr ptr(H h) {
  return h.ptr();
}
const std::vector<std::string> cell_weights(const std::string& cell) {
  return {cell + "/kernel", cell + "/recurrent_kernel", cell + "/bias"};
}
}  // namespace

TEST_CASE("harness: SimpleRNN") {
  check_layer({.label = "SimpleRNN",
               .make = [](k::DType dt) { return ptr(L::SimpleRNN(3, {.dtype = dt})); },
               .input_shapes = {{2, 4, 3}},
               .weight_names = cell_weights("simple_rnn_cell")});
  check_layer({.label = "SimpleRNN relu, return_sequences, go_backwards, L2",
               .make =
                   [](k::DType dt) {
                     return ptr(L::SimpleRNN(2, {.activation = "relu", .recurrent_regularizer = k::regularizers::L2(0.01),
                                                 .return_sequences = true, .go_backwards = true, .dtype = dt}));
                   },
               .input_shapes = {{3, 5, 2}},
               .weight_names = cell_weights("simple_rnn_cell")});
}

TEST_CASE("harness: LSTM") {
  check_layer({.label = "LSTM",
               .make = [](k::DType dt) { return ptr(L::LSTM(3, {.dtype = dt})); },
               .input_shapes = {{2, 4, 3}},
               .weight_names = cell_weights("lstm_cell")});
  check_layer({.label = "LSTM return_sequences, no bias, no unit_forget_bias",
               .make =
                   [](k::DType dt) {
                     return ptr(L::LSTM(2, {.use_bias = false, .unit_forget_bias = false, .return_sequences = true,
                                            .dtype = dt}));
                   },
               .input_shapes = {{2, 3, 4}},
               .weight_names = {"lstm_cell/kernel", "lstm_cell/recurrent_kernel"}});
  check_layer({.label = "LSTM go_backwards, hard_sigmoid",
               .make =
                   [](k::DType dt) {
                     return ptr(L::LSTM(2, {.recurrent_activation = "hard_sigmoid", .go_backwards = true, .dtype = dt}));
                   },
               .input_shapes = {{1, 5, 2}},
               .weight_names = cell_weights("lstm_cell")});
}

TEST_CASE("harness: GRU") {
  check_layer({.label = "GRU reset_after",
               .make = [](k::DType dt) { return ptr(L::GRU(3, {.dtype = dt})); },
               .input_shapes = {{2, 4, 3}},
               .weight_names = cell_weights("gru_cell")});
  check_layer({.label = "GRU reset_after=false, return_sequences",
               .make = [](k::DType dt) { return ptr(L::GRU(2, {.return_sequences = true, .reset_after = false, .dtype = dt})); },
               .input_shapes = {{3, 4, 2}},
               .weight_names = cell_weights("gru_cell")});
}

TEST_CASE("harness: RNN over built-in cells") {
  check_layer({.label = "RNN(LSTMCell)",
               .make =
                   [](k::DType dt) {
                     return ptr(L::RNN(std::make_shared<L::LSTMCellImpl>(2, L::LSTMCellOptions{.name = "cell_a", .dtype = dt}),
                                       {.return_sequences = true, .dtype = dt}));
                   },
               .input_shapes = {{2, 3, 3}},
               .weight_names = cell_weights("cell_a")});
  check_layer({.label = "RNN(GRUCell) go_backwards",
               .make =
                   [](k::DType dt) {
                     return ptr(L::RNN(std::make_shared<L::GRUCellImpl>(3, L::GRUCellOptions{.name = "cell_b", .dtype = dt}),
                                       {.go_backwards = true, .dtype = dt}));
                   },
               .input_shapes = {{2, 4, 2}},
               .weight_names = cell_weights("cell_b")});
}

TEST_CASE("harness: Bidirectional and TimeDistributed") {
  std::vector<std::string> bi;
  for (const char* d : {"forward_inner", "backward_inner"})
    for (const auto& w : cell_weights("lstm_cell")) bi.push_back(std::string(d) + "/" + w);
  check_layer({.label = "Bidirectional(LSTM) concat",
               .make = [](k::DType dt) { return ptr(L::Bidirectional(L::LSTM(2, {.name = "inner", .dtype = dt}), {.dtype = dt})); },
               .input_shapes = {{2, 4, 3}},
               .weight_names = bi});
  std::vector<std::string> bg;
  for (const char* d : {"forward_inner", "backward_inner"})
    for (const auto& w : cell_weights("gru_cell")) bg.push_back(std::string(d) + "/" + w);
  check_layer({.label = "Bidirectional(GRU) sum, return_sequences",
               .make =
                   [](k::DType dt) {
                     return ptr(L::Bidirectional(L::GRU(3, {.return_sequences = true, .name = "inner", .dtype = dt}),
                                                 {.merge_mode = "sum", .dtype = dt}));
                   },
               .input_shapes = {{2, 3, 2}},
               .weight_names = bg});
  check_layer({.label = "TimeDistributed(Dense)",
               .make = [](k::DType dt) { return ptr(L::TimeDistributed(L::Dense(3, {.name = "d", .dtype = dt}), {.dtype = dt})); },
               .input_shapes = {{2, 4, 5}},
               .weight_names = {"d/kernel", "d/bias"}});
  check_layer({.label = "TimeDistributed(Conv2D)",
               .make =
                   [](k::DType dt) { return ptr(L::TimeDistributed(L::Conv2D(2, 2, {.name = "c", .dtype = dt}), {.dtype = dt})); },
               .input_shapes = {{2, 3, 4, 4, 1}},
               .weight_names = {"c/kernel", "c/bias"}});
}

TEST_CASE("harness: Masking") {
  check_layer({.label = "Masking",
               .make = [](k::DType dt) { return ptr(L::Masking({.mask_value = 0.5, .dtype = dt})); },
               .input_shapes = {{2, 4, 3}},
               .weight_names = {}});
}

TEST_CASE("harness: ConvLSTM1D, ConvLSTM2D and ConvLSTM3D") {
  const auto names = cell_weights("conv_lstm_cell");
  std::vector<std::string> bi;
  for (const char* d : {"forward_inner", "backward_inner"})
    for (const auto& w : names) bi.push_back(std::string(d) + "/" + w);
  check_layer({.label = "Bidirectional(ConvLSTM2D) concat, return_sequences",
               .make =
                   [](k::DType dt) {
                     return ptr(L::Bidirectional(
                         L::ConvLSTM2D(2, 2, {.padding = "same", .return_sequences = true, .name = "inner", .dtype = dt}),
                         {.dtype = dt}));
                   },
               .input_shapes = {{1, 2, 3, 3, 1}},
               .weight_names = bi});
  check_layer({.label = "ConvLSTM1D",
               .make = [](k::DType dt) { return ptr(L::ConvLSTM1D(2, 2, {.dtype = dt})); },
               .input_shapes = {{2, 3, 4, 2}},
               .weight_names = names});
  check_layer({.label = "ConvLSTM1D same, strides 2, return_sequences, go_backwards",
               .make =
                   [](k::DType dt) {
                     return ptr(L::ConvLSTM1D(2, 3, {.strides = 2, .padding = "same", .return_sequences = true,
                                                     .go_backwards = true, .dtype = dt}));
                   },
               .input_shapes = {{1, 3, 5, 1}},
               .weight_names = names});
  check_layer({.label = "ConvLSTM2D same, dilation 2, return_sequences",
               .make =
                   [](k::DType dt) {
                     return ptr(L::ConvLSTM2D(2, 2, {.padding = "same", .dilation_rate = 2, .return_sequences = true,
                                                     .dtype = dt}));
                   },
               .input_shapes = {{1, 2, 3, 3, 1}},
               .weight_names = names});
  check_layer({.label = "ConvLSTM2D channels_first, no bias, L2 on the recurrent kernel",
               .make =
                   [](k::DType dt) {
                     return ptr(L::ConvLSTM2D(2, {2, 1}, {.data_format = "channels_first", .use_bias = false,
                                                          .recurrent_regularizer = k::regularizers::L2(0.01),
                                                          .dtype = dt}));
                   },
               .input_shapes = {{2, 2, 1, 3, 2}},
               .weight_names = {"conv_lstm_cell/kernel", "conv_lstm_cell/recurrent_kernel"}});
  check_layer({.label = "ConvLSTM3D",
               .make = [](k::DType dt) { return ptr(L::ConvLSTM3D(1, {2}, {.dtype = dt})); },
               .input_shapes = {{1, 2, 2, 3, 3, 1}},
               .weight_names = names});
  check_layer({.label = "ConvLSTM3D same, strides (1, 2, 1), return_sequences",
               .make =
                   [](k::DType dt) {
                     return ptr(L::ConvLSTM3D(1, {2, 2, 1}, {.strides = {1, 2, 1}, .padding = "same",
                                                             .return_sequences = true, .dtype = dt}));
                   },
               .input_shapes = {{1, 2, 2, 3, 2, 1}},
               .weight_names = names});
}

}  // namespace test_harness_recurrent

// ConvLSTM1D/2D/3D: hand-computed steps, the reduction to LSTM for a 1x1
// kernel, channels_first against channels_last, masking, states, output
// shapes and Keras's argument errors.
#include <doctest/doctest.h>

#include "kiln/autodiff/gradient_tape.h"
#include "kiln/core/error.h"
#include "kiln/layers.h"
#include "kiln/nn/masking.h"
#include "kiln/ops/ops.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_conv_lstm_values {

namespace k = kiln;
namespace L = kiln::layers;

namespace {
double max_diff(const k::Tensor& a, const k::Tensor& b) {
  REQUIRE(a.shape() == b.shape());
  return k::max(k::abs(a - b)).item<double>();
}
k::Tensor vec(std::vector<float> v, k::Shape s) { return k::Tensor(v, s); }
}  // namespace

TEST_CASE("ConvLSTM1D: two hand-computed steps of a one-filter, 1-wide cell") {
  // Per gate (i, f, c, o): kernel (0.5, 0.25, 1, -0.5), recurrent kernel (0.1, 0.2, 0.3, 0.4),
  // bias (0, 1, 0, 0). Step 1, x = 2, h = c = 0: c1 = sigmoid(1)·tanh(2) = 0.7047606,
  // h1 = sigmoid(-1)·tanh(c1) = 0.1633499. Step 2, x = -1: z = kernel·x + bias + recurrent·h1,
  // c2 = sigmoid(z_f)·c1 + sigmoid(z_i)·tanh(z_c) = 0.2013303, h2 = sigmoid(z_o)·tanh(c2) = 0.1266788.
  L::ConvLSTM1D layer(1, 1, {.return_sequences = true, .return_state = true});
  const k::Tensor x = vec({2.f, -1.f}, {1, 2, 1, 1});  // (batch, time, length, channels)
  layer(x);
  layer->set_weights({vec({0.5f, 0.25f, 1.f, -0.5f}, {1, 1, 4}), vec({0.1f, 0.2f, 0.3f, 0.4f}, {1, 1, 4}),
                      vec({0.f, 1.f, 0.f, 0.f}, {4})});
  std::vector<k::Tensor> out = layer.call_multi({x});
  REQUIRE(out.size() == 3);
  CHECK(out[0].shape() == k::Shape{1, 2, 1, 1});
  const auto seq = out[0].to_vector<double>();
  CHECK(seq[0] == doctest::Approx(0.16334986833769127).epsilon(1e-6));
  CHECK(seq[1] == doctest::Approx(0.12667878960781243).epsilon(1e-6));
  CHECK(out[1].item<double>() == doctest::Approx(0.12667878960781243).epsilon(1e-6));  // h
  CHECK(out[2].item<double>() == doctest::Approx(0.20133033533451916).epsilon(1e-6));  // c
  // unit_forget_bias: the built bias starts at 1 for the forget gate only.
  L::ConvLSTM1D fresh(3, 2);
  fresh(k::zeros({1, 1, 4, 2}));
  CHECK(fresh->get_weights()[2].to_vector<double>() == std::vector<double>{0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0});
}

TEST_CASE("ConvLSTM2D with a 1x1 kernel is an LSTM at every pixel") {
  k::random::set_seed(11);
  const k::Tensor x = k::random::normal({2, 4, 3, 2, 2});  // (batch, time, H, W, C)
  L::ConvLSTM2D conv(3, 1, {.return_sequences = true});
  const k::Tensor y = conv(x);
  CHECK(y.shape() == k::Shape{2, 4, 3, 2, 3});
  // Every pixel's sequence as one LSTM sample: (batch·H·W, time, C).
  const k::Tensor pixels = k::reshape(k::transpose(x, {0, 2, 3, 1, 4}), {12, 4, 2});
  L::LSTM lstm(3, {.return_sequences = true});
  lstm(pixels);
  auto w = conv->get_weights();
  lstm->set_weights({k::reshape(w[0], {2, 12}), k::reshape(w[1], {3, 12}), w[2]});
  const k::Tensor expected = k::transpose(k::reshape(lstm(pixels), {2, 3, 2, 4, 3}), {0, 3, 1, 2, 4});
  CHECK(max_diff(y, expected) < 1e-5);
}

TEST_CASE("ConvLSTM: channels_first equals channels_last on the transposed input") {
  k::random::set_seed(12);
  const k::Tensor x = k::random::normal({1, 3, 4, 5, 2});
  L::ConvLSTM2D last(2, 3, {.padding = "same", .return_sequences = true});
  L::ConvLSTM2D first(2, 3, {.padding = "same", .data_format = "channels_first", .return_sequences = true});
  const k::Tensor y = last(x);
  const k::Tensor xf = k::transpose(x, {0, 1, 4, 2, 3});
  first(xf);
  first->set_weights(last->get_weights());
  const k::Tensor yf = first(xf);
  CHECK(yf.shape() == k::Shape{1, 3, 2, 4, 5});
  CHECK(max_diff(k::transpose(yf, {0, 1, 3, 4, 2}), y) < 1e-5);
}

TEST_CASE("ConvLSTM3D: strided valid output shape and a 1x1x1 kernel against ConvLSTM1D") {
  k::random::set_seed(13);
  L::ConvLSTM3D strided(4, {3}, {.strides = {2, 2, 2}});
  CHECK(strided->compute_output_shape(k::Shape{-1, 5, 7, 9, 8, 3}) == k::Shape{-1, 3, 4, 3, 4});
  // A 1x1x1 kernel sees each voxel alone, as a 1-wide ConvLSTM1D over the flattened voxels.
  const k::Tensor x = k::random::normal({1, 3, 2, 2, 2, 2});
  L::ConvLSTM3D voxels(2, {1});
  const k::Tensor y = voxels(x);
  L::ConvLSTM1D flat(2, 1);
  const k::Tensor xf = k::reshape(x, {1, 3, 8, 2});
  flat(xf);
  auto w = voxels->get_weights();
  flat->set_weights({k::reshape(w[0], {1, 2, 8}), k::reshape(w[1], {1, 2, 8}), w[2]});
  CHECK(max_diff(k::reshape(flat(xf), {1, 2, 2, 2, 2}), y) < 1e-5);
}

TEST_CASE("ConvLSTM: masked steps carry the states") {
  k::random::set_seed(14);
  const k::Tensor x = k::random::normal({2, 4, 5, 1});
  L::ConvLSTM1D layer(2, 2);
  const k::Tensor full = layer(x);
  const k::Tensor first3 = layer(x[{k::Slice(), k::Slice(0, 3)}]);
  k::Tensor masked = x.clone();
  k::set_keras_mask(masked, k::Tensor({{true, true, true, false}, {true, true, true, true}}));
  const k::Tensor y = layer(masked);
  CHECK(max_diff(y[0], first3[0]) < 1e-6);  // sample 0's last step is skipped
  CHECK(max_diff(y[1], full[1]) < 1e-6);
  CHECK(max_diff(first3[0], full[0]) > 1e-4);  // the skipped step would have changed it
}

TEST_CASE("ConvLSTM: return_state, initial states and stateful carrying") {
  k::random::set_seed(15);
  const k::Tensor x = k::random::normal({2, 6, 4, 3, 1});
  L::ConvLSTM2D full(2, 2, {.return_state = true});
  std::vector<k::Tensor> o = full.call_multi({x});
  REQUIRE(o.size() == 3);
  CHECK(o[0].shape() == k::Shape{2, 3, 2, 2});
  CHECK(max_diff(o[0], o[1]) == 0.0);  // the output is h
  CHECK(o[2].shape() == k::Shape{2, 3, 2, 2});
  // Zero initial states are the default; the final states of the first half start the second.
  const auto half1 = full.call_multi({x[{k::Slice(), k::Slice(0, 3)}], k::zeros({2, 3, 2, 2}), k::zeros({2, 3, 2, 2})});
  const auto half2 = full.call_multi({x[{k::Slice(), k::Slice(3, 6)}], half1[1], half1[2]});
  CHECK(max_diff(half2[0], o[0]) < 1e-5);

  L::ConvLSTM2D st(2, 2, {.stateful = true});
  st(x[{k::Slice(), k::Slice(0, 3)}]);
  st->set_weights(full->get_weights());
  st->reset_states();
  st(x[{k::Slice(), k::Slice(0, 3)}]);
  const k::Tensor second = st(x[{k::Slice(), k::Slice(3, 6)}]);
  CHECK(max_diff(second, o[0]) < 1e-5);  // two halves = one call
  st->reset_states();
  CHECK(max_diff(st(x[{k::Slice(), k::Slice(3, 6)}]), second) > 1e-4);
}

TEST_CASE("ConvLSTM: dropout acts in training only, and gradients flow through the masks") {
  k::random::set_seed(16);
  const k::Tensor x = k::random::normal({2, 3, 4, 4, 2});
  L::ConvLSTM2D plain(3, 2, {.padding = "same", .return_sequences = true});
  L::ConvLSTM2D dropped(3, 2, {.padding = "same", .dropout = 0.5, .recurrent_dropout = 0.5, .seed = 7,
                               .return_sequences = true});
  plain(x);
  dropped(x);
  dropped->set_weights(plain->get_weights());
  CHECK(max_diff(dropped(x), plain(x)) == 0.0);  // inference ignores both rates
  k::GradientTape tape;
  const k::Tensor y = dropped(x, true);
  CHECK(max_diff(y, plain(x)) > 1e-3);
  const auto grads = tape.gradient(k::sum(y), dropped->trainable_variables());
  REQUIRE(grads.size() == 3);
  for (const auto& g : grads) {
    REQUIRE(g.has_value());
    CHECK(k::max(k::abs(*g)).item<double>() > 0.0);
  }
  // Fresh masks for every call: two training calls differ.
  CHECK(max_diff(dropped(x, true), y) > 1e-4);
}

TEST_CASE("ConvLSTM: Keras's argument errors and clear shape errors") {
  CHECK_THROWS_WITH_AS(L::ConvLSTM2D(2, {3, 0}),
                       "The `kernel_size` argument must be a tuple of 2 integers. Received kernel_size=(3, 0), "
                       "including values {0} that do not satisfy `value > 0`",
                       k::ValueError);
  CHECK_THROWS_WITH_AS(L::ConvLSTM3D(2, {3, 3}),
                       "The `kernel_size` argument must be a tuple of 3 integers. Received kernel_size=(3, 3)",
                       k::ValueError);
  CHECK_THROWS_WITH_AS(L::ConvLSTM1D(2, 3, {.padding = "causal"}),
                       "The `padding` argument must be a list/tuple or one of {'valid', 'same'}. Received: causal",
                       k::ValueError);
  CHECK_THROWS_WITH_AS(L::ConvLSTM2D(2, 3, {.strides = 2, .dilation_rate = 2}),
                       "Specifying `strides > 1` is not compatible with `dilation_rate > 1`. Please provide "
                       "`strides=1` or `dilation_rate=1`. Received: strides=(2, 2) and dilation_rate=(2, 2)",
                       k::ValueError);
  CHECK_THROWS_WITH_AS(L::ConvLSTM1D(2, 3, {.data_format = "channels_middle"}),
                       "The `data_format` argument must be one of {'channels_first', 'channels_last'}. Received: "
                       "data_format=channels_middle",
                       k::ValueError);
  CHECK_THROWS_AS(L::ConvLSTM2D(0, 3), k::ValueError);
  // The input convolution would leave nothing: a 3x3 kernel on 2x2 frames.
  L::ConvLSTM2D small(2, 3);
  CHECK_THROWS_WITH_AS(small(k::zeros({1, 2, 2, 2, 1})), doctest::Contains("Computed output size would be zero or negative"),
                       k::ValueError);
  L::ConvLSTM2D rank(2, 3);
  CHECK_THROWS_WITH_AS(rank(k::zeros({1, 2, 4, 4})), doctest::Contains("expected ndim=5, found ndim=4"), k::ValueError);
}

}  // namespace test_conv_lstm_values

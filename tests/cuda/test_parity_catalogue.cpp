// GPU parity of the Keras 3 layer catalogue (recurrent, attention, convolution
// variants, pooling and resizing, normalization, regularization and
// preprocessing), one layer_parity line per layer: forward and the gradients of
// every float input and trainable weight agree between the CPU and cuda:0.
// Random layers run in inference, where Keras makes them the identity or a
// fixed transform, so both devices compute the same function.
#include <doctest/doctest.h>

#include <kiln/kiln.h>

#include "layer_parity.h"

namespace k = kiln;
namespace L = kiln::layers;
using namespace kiln::cudatest;

namespace {
const Tol kConv{1e-3, 1e-4};
}  // namespace

TEST_CASE("GPU parity: recurrent layers") {
  KILN_REQUIRE_GPU("recurrent layer parity");
  layer_parity("SimpleRNN", [] { return L::SimpleRNN(4); }, {3, 5, 2});
  layer_parity("LSTM", [] { return L::LSTM(4); }, {3, 5, 2});
  layer_parity("LSTM sequences backwards", [] { return L::LSTM(3, {.return_sequences = true, .go_backwards = true}); },
               {2, 4, 3});
  layer_parity("GRU", [] { return L::GRU(4); }, {3, 5, 2});
  layer_parity("GRU reset_after=False", [] { return L::GRU(3, {.return_sequences = true, .reset_after = false}); },
               {2, 4, 3});
  layer_parity("Bidirectional(LSTM)", [] { return L::Bidirectional(L::LSTM(3)); }, {2, 4, 3});
  layer_parity("TimeDistributed(Dense)", [] { return L::TimeDistributed(L::Dense(3)); }, {2, 4, 5});
  layer_parity("Masking", [] { return L::Masking({.mask_value = 0.5}); }, {2, 4, 3});
}

TEST_CASE("GPU parity: attention layers") {
  KILN_REQUIRE_GPU("attention layer parity");
  layer_parity("EinsumDense", [] { return L::EinsumDense("abc,cd->abd", {4, 2}, {.bias_axes = "bd"}); }, {2, 4, 3});
  layer_parity_list("Attention", [] { return L::Attention({.use_scale = true}); }, {{2, 3, 4}, {2, 5, 4}});
  layer_parity_list("AdditiveAttention", [] { return L::AdditiveAttention(); }, {{2, 3, 4}, {2, 5, 4}});
  layer_parity_list("MultiHeadAttention", [] { return L::MultiHeadAttention(2, 3); }, {{2, 3, 4}, {2, 5, 4}});
  layer_parity_list("GroupedQueryAttention", [] { return L::GroupedQueryAttention(3, 4, 2); }, {{2, 3, 4}, {2, 5, 4}});
}

TEST_CASE("GPU parity: convolution variants") {
  KILN_REQUIRE_GPU("convolution variant parity");
  const LayerParityOptions conv{.tol = kConv};
  layer_parity("Conv3D", [] { return L::Conv3D(2, {3, 2, 2}, {.strides = {2, 1, 2}, .padding = "same"}); },
               {2, 5, 4, 4, 3}, conv);
  layer_parity("Conv1DTranspose", [] { return L::Conv1DTranspose(2, 3, {.strides = 2}); }, {2, 5, 3}, conv);
  layer_parity("Conv2DTranspose", [] { return L::Conv2DTranspose(3, {3, 2}, {.strides = 2, .padding = "same"}); },
               {2, 4, 5, 2}, conv);
  layer_parity("Conv3DTranspose", [] { return L::Conv3DTranspose(2, {2, 3, 2}); }, {2, 3, 3, 2, 2}, conv);
  layer_parity("DepthwiseConv1D", [] { return L::DepthwiseConv1D(3); }, {2, 7, 3}, conv);
  layer_parity("DepthwiseConv2D", [] { return L::DepthwiseConv2D({2, 3}, {.strides = 2, .depth_multiplier = 2}); },
               {2, 6, 7, 3}, conv);
  layer_parity("SeparableConv1D", [] { return L::SeparableConv1D(4, 3, {.dilation_rate = 2}); }, {2, 9, 3}, conv);
  layer_parity("SeparableConv2D", [] { return L::SeparableConv2D(3, 3, {.depth_multiplier = 2}); }, {2, 6, 6, 2},
               conv);
}

TEST_CASE("GPU parity: pooling, resizing and reshaping variants") {
  KILN_REQUIRE_GPU("pooling and resizing parity");
  layer_parity("MaxPooling3D", [] { return L::MaxPooling3D({2, 2, 2}); }, {2, 4, 4, 4, 2});
  layer_parity("AveragePooling3D", [] { return L::AveragePooling3D({2, 2, 2}); }, {2, 4, 4, 4, 2});
  layer_parity("GlobalAveragePooling3D", [] { return L::GlobalAveragePooling3D(); }, {2, 3, 3, 3, 2});
  layer_parity("GlobalMaxPooling3D", [] { return L::GlobalMaxPooling3D(); }, {2, 3, 3, 3, 2});
  layer_parity("AdaptiveAveragePooling2D", [] { return L::AdaptiveAveragePooling2D({2, 3}); }, {2, 5, 7, 2});
  layer_parity("AdaptiveMaxPooling1D", [] { return L::AdaptiveMaxPooling1D({4}); }, {2, 9, 3});
  layer_parity("UpSampling1D", [] { return L::UpSampling1D(2); }, {2, 4, 3});
  layer_parity("UpSampling2D bilinear", [] { return L::UpSampling2D(2, {.interpolation = "bilinear"}); },
               {2, 3, 4, 2});
  layer_parity("UpSampling3D", [] { return L::UpSampling3D({2, 1, 3}); }, {2, 2, 3, 2, 2});
  layer_parity("Cropping1D", [] { return L::Cropping1D({1, 2}); }, {2, 6, 3});
  layer_parity("Cropping2D", [] { return L::Cropping2D({1, 0}, {2, 1}); }, {2, 5, 6, 2});
  layer_parity("Cropping3D", [] { return L::Cropping3D(1, {0, 1}, 0); }, {2, 4, 4, 3, 2});
  layer_parity("ZeroPadding1D", [] { return L::ZeroPadding1D({2, 1}); }, {2, 4, 3});
  layer_parity("ZeroPadding3D", [] { return L::ZeroPadding3D(1, {0, 2}, 1); }, {2, 2, 3, 2, 2});
  layer_parity("Resizing bilinear", [] { return L::Resizing(3, 5); }, {2, 6, 4, 2});
  layer_parity("CenterCrop", [] { return L::CenterCrop(3, 2); }, {2, 5, 4, 2});
  layer_parity("Rescaling", [] { return L::Rescaling(0.5, {.offset = -1}); }, {2, 4, 3});
}

TEST_CASE("GPU parity: audio layers") {
  KILN_REQUIRE_GPU("audio layer parity");
  layer_parity("STFTSpectrogram", [] { return L::STFTSpectrogram({.mode = "psd", .frame_length = 8, .frame_step = 3}); },
               {2, 23, 2});
  layer_parity("MelSpectrogram",
               [] { return L::MelSpectrogram({.fft_length = 16, .sequence_stride = 5, .sampling_rate = 8000, .num_mel_bins = 6}); },
               {2, 41});
}

TEST_CASE("GPU parity: normalization and regularization layers") {
  KILN_REQUIRE_GPU("normalization parity");
  layer_parity("GroupNormalization", [] { return L::GroupNormalization({.groups = 2}); }, {3, 4, 6});
  layer_parity("RMSNormalization", [] { return L::RMSNormalization(); }, {3, 6});
  layer_parity("UnitNormalization", [] { return L::UnitNormalization(); }, {3, 6});
  layer_parity("GaussianNoise (inference)", [] { return L::GaussianNoise(0.3); }, {3, 6});
  layer_parity("GaussianDropout (inference)", [] { return L::GaussianDropout(0.3); }, {3, 6});
  layer_parity("AlphaDropout (inference)", [] { return L::AlphaDropout(0.2); }, {3, 6});
  layer_parity("SpatialDropout2D (inference)", [] { return L::SpatialDropout2D(0.3); }, {2, 4, 4, 3});
  layer_parity("ActivityRegularization", [] { return L::ActivityRegularization(0.01, 0.02); }, {3, 6});
  layer_parity("Identity", [] { return L::Identity(); }, {3, 6});
}

TEST_CASE("GPU parity: preprocessing layers") {
  KILN_REQUIRE_GPU("preprocessing parity");
  layer_parity("CategoryEncoding count", [] { return L::CategoryEncoding(10, {.output_mode = "count"}); }, {3, 4},
               {.int_input = true});
  layer_parity("Discretization",
               [] { return L::Discretization({.bin_boundaries = std::vector<double>{-0.5, 0.0, 0.7}}); }, {3, 5});
  layer_parity("IntegerLookup", [] { return L::IntegerLookup({.vocabulary = std::vector<int64_t>{3, 1, 4, 5}}); },
               {3, 4}, {.int_input = true});
  layer_parity("RandomFlip (inference)", [] { return L::RandomFlip("horizontal"); }, {2, 4, 5, 3});
  layer_parity("RandomRotation (inference)", [] { return L::RandomRotation(0.2); }, {2, 4, 5, 3});
  layer_parity("RandomZoom (inference)", [] { return L::RandomZoom(0.2); }, {2, 4, 5, 3});
  layer_parity("RandomTranslation (inference)", [] { return L::RandomTranslation(0.1, 0.2); }, {2, 4, 5, 3});
  layer_parity("RandomCrop (inference)", [] { return L::RandomCrop(3, 2); }, {2, 4, 5, 3});
  layer_parity("RandomContrast (inference)", [] { return L::RandomContrast(0.4); }, {2, 4, 5, 3});
  layer_parity("RandomBrightness (inference)", [] { return L::RandomBrightness(0.2); }, {2, 4, 5, 3});
}

TEST_CASE("GPU parity: every activation by name") {
  KILN_REQUIRE_GPU("activation parity");
  for (const char* name : {"celu", "elu", "exponential", "gelu", "hard_shrink", "hard_sigmoid", "hard_silu",
                           "hard_tanh", "leaky_relu", "linear", "log_sigmoid", "log_softmax", "mish", "relu6", "selu",
                           "silu", "soft_shrink", "softsign", "sparse_plus", "squareplus", "tanh_shrink"})
    layer_parity(std::string("Activation ") + name, [name] { return L::Activation(name); }, {4, 7});
}

// The normalization, noise, shape and image layers through the one harness (layer_harness.h).
#include <doctest/doctest.h>

#include <cmath>

#include "kiln/layers.h"
#include "kiln/autodiff/gradient_tape.h"
#include "kiln/nn/masking.h"
#include "kiln/ops/ops.h"
#include "kiln/core/error.h"
#include "layer_harness.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_harness_catalogue {

namespace k = kiln;
namespace L = kiln::layers;
using k::testing::check_layer;
using k::testing::LayerCase;

namespace {
template <class H>
k::LayerPtr ptr(H h) {
  return h.ptr();
}
}  // namespace

TEST_CASE("harness: GroupNormalization, RMSNormalization, UnitNormalization") {
  check_layer({.label = "GroupNormalization 2 groups",
               .make = [](k::DType dt) { return ptr(L::GroupNormalization({.groups = 2, .dtype = dt})); },
               .input_shapes = {{3, 5, 4}},
               .weight_names = {"gamma", "beta"}});
  check_layer({.label = "GroupNormalization channels_first, instance norm",
               .make = [](k::DType dt) { return ptr(L::GroupNormalization({.groups = -1, .axis = 1, .dtype = dt})); },
               .input_shapes = {{2, 3, 4, 2}},
               .weight_names = {"gamma", "beta"}});
  check_layer({.label = "RMSNormalization",
               .make = [](k::DType dt) { return ptr(L::RMSNormalization({.dtype = dt})); },
               .input_shapes = {{3, 2, 5}},
               .weight_names = {"scale"}});
  check_layer({.label = "UnitNormalization axes 1, 2",
               .make = [](k::DType dt) { return ptr(L::UnitNormalization({.axis = {1, 2}, .dtype = dt})); },
               .input_shapes = {{3, 2, 4}}});
}

TEST_CASE("harness: Normalization with given and adapted statistics") {
  check_layer({.label = "Normalization given",
               .make = [](k::DType dt) {
                 return ptr(L::Normalization({.mean = std::vector<double>{1, -2, 0.5},
                                              .variance = std::vector<double>{4, 0.25, 9}, .dtype = dt}));
               },
               .input_shapes = {{4, 3}}});
  check_layer({.label = "Normalization invert, scalar statistics",
               .make = [](k::DType dt) {
                 return ptr(L::Normalization({.axis = k::Axes(std::vector<int>{}), .mean = std::vector<double>{0.5},
                                              .variance = std::vector<double>{2}, .invert = true, .dtype = dt}));
               },
               .input_shapes = {{2, 3, 2}}});
  check_layer({.label = "Normalization adapted",
               .make = [](k::DType dt) {
                 L::Normalization n({.dtype = dt});
                 n->adapt(k::cast(k::reshape(k::range(0.0, 12.0, 1.0, k::float64), {4, 3}) * 0.5, dt));
                 return ptr(n);
               },
               .input_shapes = {{2, 3}},
               .weight_names = {"mean", "variance", "count"}});
}

TEST_CASE("harness: noise and regularization layers (inference: the identity)") {
  check_layer({.label = "GaussianNoise", .make = [](k::DType dt) { return ptr(L::GaussianNoise(0.3, {.dtype = dt})); }, .input_shapes = {{3, 4}}});
  check_layer({.label = "GaussianDropout", .make = [](k::DType dt) { return ptr(L::GaussianDropout(0.3, {.dtype = dt})); }, .input_shapes = {{3, 4}}});
  check_layer({.label = "AlphaDropout", .make = [](k::DType dt) { return ptr(L::AlphaDropout(0.2, {.dtype = dt})); }, .input_shapes = {{3, 4}}});
  check_layer({.label = "SpatialDropout1D", .make = [](k::DType dt) { return ptr(L::SpatialDropout1D(0.3, {.dtype = dt})); }, .input_shapes = {{2, 5, 3}}});
  check_layer({.label = "SpatialDropout2D",
               .make = [](k::DType dt) { return ptr(L::SpatialDropout2D(0.3, {.data_format = "channels_first", .dtype = dt})); },
               .input_shapes = {{2, 3, 4, 2}}});
  check_layer({.label = "SpatialDropout3D", .make = [](k::DType dt) { return ptr(L::SpatialDropout3D(0.3, {.dtype = dt})); }, .input_shapes = {{2, 2, 3, 2, 3}}});
  check_layer({.label = "Identity", .make = [](k::DType dt) { return ptr(L::Identity({.dtype = dt})); }, .input_shapes = {{3, 4}}});
  check_layer({.label = "ActivityRegularization",
               .make = [](k::DType dt) { return ptr(L::ActivityRegularization(0.01, 0.02, {.dtype = dt})); },
               .input_shapes = {{3, 4}}});
}

TEST_CASE("harness: cropping and zero padding") {
  check_layer({.label = "Cropping1D", .make = [](k::DType dt) { return ptr(L::Cropping1D({1, 2}, {.dtype = dt})); }, .input_shapes = {{2, 6, 3}}});
  check_layer({.label = "Cropping2D", .make = [](k::DType dt) { return ptr(L::Cropping2D({1, 0}, {2, 1}, {.dtype = dt})); }, .input_shapes = {{2, 5, 6, 2}}});
  check_layer({.label = "Cropping3D channels_first",
               .make = [](k::DType dt) { return ptr(L::Cropping3D(1, {0, 1}, 0, {.data_format = "channels_first", .dtype = dt})); },
               .input_shapes = {{2, 2, 4, 3, 2}}});
  check_layer({.label = "ZeroPadding1D", .make = [](k::DType dt) { return ptr(L::ZeroPadding1D({2, 1}, {.dtype = dt})); }, .input_shapes = {{2, 3, 2}}});
  check_layer({.label = "ZeroPadding3D", .make = [](k::DType dt) { return ptr(L::ZeroPadding3D(1, {0, 2}, 1, {.dtype = dt})); }, .input_shapes = {{2, 2, 2, 3, 2}}});
}

TEST_CASE("harness: up-sampling and image layers") {
  check_layer({.label = "UpSampling2D nearest", .make = [](k::DType dt) { return ptr(L::UpSampling2D({2, 3}, {.dtype = dt})); }, .input_shapes = {{2, 3, 2, 2}}});
  check_layer({.label = "UpSampling2D bilinear",
               .make = [](k::DType dt) { return ptr(L::UpSampling2D(2, {.interpolation = "bilinear", .dtype = dt})); },
               .input_shapes = {{2, 3, 2, 2}}});
  check_layer({.label = "UpSampling3D", .make = [](k::DType dt) { return ptr(L::UpSampling3D({2, 1, 3}, {.dtype = dt})); }, .input_shapes = {{2, 2, 2, 2, 1}}});
  check_layer({.label = "Rescaling", .make = [](k::DType dt) { return ptr(L::Rescaling(0.5, {.offset = -1, .dtype = dt})); }, .input_shapes = {{2, 3}}});
  check_layer({.label = "Resizing bilinear down", .make = [](k::DType dt) { return ptr(L::Resizing(3, 5, {.dtype = dt})); }, .input_shapes = {{2, 7, 4, 2}}});
  check_layer({.label = "Resizing nearest, crop to aspect ratio",
               .make = [](k::DType dt) {
                 return ptr(L::Resizing(4, 4, {.interpolation = "nearest", .crop_to_aspect_ratio = true, .dtype = dt}));
               },
               .input_shapes = {{2, 6, 5, 1}}});
  check_layer({.label = "Resizing pad to aspect ratio",
               .make = [](k::DType dt) { return ptr(L::Resizing(4, 6, {.pad_to_aspect_ratio = true, .fill_value = 0.5, .dtype = dt})); },
               .input_shapes = {{2, 4, 3, 2}}});
  check_layer({.label = "CenterCrop", .make = [](k::DType dt) { return ptr(L::CenterCrop(3, 2, {.dtype = dt})); }, .input_shapes = {{2, 6, 5, 2}}});
  check_layer({.label = "CenterCrop smaller input", .make = [](k::DType dt) { return ptr(L::CenterCrop(6, 4, {.dtype = dt})); }, .input_shapes = {{2, 3, 5, 2}}});
}

TEST_CASE("harness: 3D, global 3D and adaptive pooling") {
  check_layer({.label = "MaxPooling3D same", .make = [](k::DType dt) { return ptr(L::MaxPooling3D({3, 2, 2}, {.strides = {2, 1, 2}, .padding = "same", .dtype = dt})); },
               .input_shapes = {{2, 5, 4, 3, 2}}});
  check_layer({.label = "AveragePooling3D channels_first",
               .make = [](k::DType dt) { return ptr(L::AveragePooling3D({2, 2, 2}, {.data_format = "channels_first", .dtype = dt})); },
               .input_shapes = {{2, 2, 4, 4, 3}}});
  check_layer({.label = "GlobalAveragePooling3D", .make = [](k::DType dt) { return ptr(L::GlobalAveragePooling3D({.dtype = dt})); }, .input_shapes = {{2, 2, 3, 2, 2}}});
  check_layer({.label = "GlobalMaxPooling3D", .make = [](k::DType dt) { return ptr(L::GlobalMaxPooling3D({.keepdims = true, .dtype = dt})); }, .input_shapes = {{2, 2, 3, 2, 2}}});
  check_layer({.label = "AdaptiveAveragePooling2D", .make = [](k::DType dt) { return ptr(L::AdaptiveAveragePooling2D({2, 3}, {.dtype = dt})); }, .input_shapes = {{2, 5, 7, 2}}});
  check_layer({.label = "AdaptiveAveragePooling1D", .make = [](k::DType dt) { return ptr(L::AdaptiveAveragePooling1D({3}, {.dtype = dt})); }, .input_shapes = {{2, 7, 2}}});
  check_layer({.label = "AdaptiveAveragePooling3D", .make = [](k::DType dt) { return ptr(L::AdaptiveAveragePooling3D({2, 1, 2}, {.dtype = dt})); }, .input_shapes = {{1, 3, 2, 5, 2}}});
  check_layer({.label = "AdaptiveMaxPooling2D", .make = [](k::DType dt) { return ptr(L::AdaptiveMaxPooling2D({2, 2}, {.dtype = dt})); }, .input_shapes = {{2, 5, 4, 1}}});
  check_layer({.label = "AdaptiveMaxPooling1D", .make = [](k::DType dt) { return ptr(L::AdaptiveMaxPooling1D({4}, {.dtype = dt})); }, .input_shapes = {{2, 9, 2}}});
  check_layer({.label = "AdaptiveMaxPooling3D", .make = [](k::DType dt) { return ptr(L::AdaptiveMaxPooling3D({2}, {.dtype = dt})); }, .input_shapes = {{1, 4, 3, 5, 1}}});
}

TEST_CASE("harness: depthwise and separable convolutions") {
  check_layer({.label = "DepthwiseConv2D multiplier 2, same, strides 2",
               .make = [](k::DType dt) { return ptr(L::DepthwiseConv2D({2, 3}, {.strides = 2, .padding = "same", .depth_multiplier = 2, .dtype = dt})); },
               .input_shapes = {{2, 5, 6, 3}},
               .weight_names = {"kernel", "bias"}});
  check_layer({.label = "DepthwiseConv1D channels_first",
               .make = [](k::DType dt) { return ptr(L::DepthwiseConv1D(3, {.data_format = "channels_first", .dtype = dt})); },
               .input_shapes = {{2, 2, 7}},
               .weight_names = {"kernel", "bias"}});
  check_layer({.label = "SeparableConv2D",
               .make = [](k::DType dt) { return ptr(L::SeparableConv2D(3, 3, {.depth_multiplier = 2, .activation = "relu", .dtype = dt})); },
               .input_shapes = {{2, 5, 4, 2}},
               .weight_names = {"depthwise_kernel", "pointwise_kernel", "bias"}});
  check_layer({.label = "SeparableConv1D dilation 2",
               .make = [](k::DType dt) { return ptr(L::SeparableConv1D(4, 3, {.dilation_rate = 2, .dtype = dt})); },
               .input_shapes = {{2, 9, 2}},
               .weight_names = {"depthwise_kernel", "pointwise_kernel", "bias"}});
}

TEST_CASE("harness: transposed convolutions and Conv3D") {
  check_layer({.label = "Conv3D same strides",
               .make = [](k::DType dt) { return ptr(L::Conv3D(2, {3, 2, 2}, {.strides = {2, 1, 2}, .padding = "same", .dtype = dt})); },
               .input_shapes = {{2, 4, 3, 4, 2}},
               .weight_names = {"kernel", "bias"}});
  check_layer({.label = "Conv3D dilation, channels_first",
               .make = [](k::DType dt) { return ptr(L::Conv3D(2, {2}, {.data_format = "channels_first", .dilation_rate = {2, 1, 1}, .dtype = dt})); },
               .input_shapes = {{1, 2, 4, 3, 3}},
               .weight_names = {"kernel", "bias"}});
  check_layer({.label = "Conv3D groups",
               .make = [](k::DType dt) { return ptr(L::Conv3D(4, {2, 1, 2}, {.padding = "same", .groups = 2, .dtype = dt})); },
               .input_shapes = {{2, 3, 2, 3, 4}},
               .weight_names = {"kernel", "bias"}});
  check_layer({.label = "Conv2DTranspose strides 2 same",
               .make = [](k::DType dt) { return ptr(L::Conv2DTranspose(3, {3, 2}, {.strides = 2, .padding = "same", .dtype = dt})); },
               .input_shapes = {{2, 3, 4, 2}},
               .weight_names = {"kernel", "bias"}});
  check_layer({.label = "Conv2DTranspose output_padding, dilation",
               .make = [](k::DType dt) { return ptr(L::Conv2DTranspose(2, 3, {.strides = {2, 3}, .output_padding = k::layers::Size2(1, 0), .dtype = dt})); },
               .input_shapes = {{2, 3, 3, 2}},
               .weight_names = {"kernel", "bias"}});
  check_layer({.label = "Conv1DTranspose channels_first",
               .make = [](k::DType dt) { return ptr(L::Conv1DTranspose(2, 3, {.strides = 2, .data_format = "channels_first", .dtype = dt})); },
               .input_shapes = {{2, 3, 5}},
               .weight_names = {"kernel", "bias"}});
}

TEST_CASE("harness: keras.applications' own layers") {
  check_layer({.label = "LayerScale",
               .make = [](k::DType dt) { return ptr(L::LayerScale(0.5, 4, {.dtype = dt})); },
               .input_shapes = {{2, 3, 4}},
               .weight_names = {"variable"}});
  check_layer({.label = "StochasticDepth", .make = [](k::DType dt) { return ptr(L::StochasticDepth(0.3, {.dtype = dt})); },
               .input_shapes = {{3, 2, 4}}});
  check_layer({.label = "CustomScaleLayer",
               .make = [](k::DType dt) { return ptr(L::CustomScaleLayer(0.17, {.dtype = dt})); },
               .input_shapes = {{2, 3}, {2, 3}},
               .list_input = true});
}

TEST_CASE("harness: ReversibleEmbedding and SpectralNormalization (at inference; the oracle compares training)") {
  check_layer({.label = "ReversibleEmbedding (forward)",
               .make = [](k::DType dt) { return ptr(L::ReversibleEmbedding(6, 3, {.dtype = dt})); },
               .input_shapes = {{2, 5}},
               .weight_names = {"embeddings"},
               .integer_input = true,
               .int_high = 6});
  check_layer({.label = "SpectralNormalization(Dense)",
               .make = [](k::DType dt) {
                 return ptr(L::SpectralNormalization(L::Dense(3, {.name = "d", .dtype = dt}), {.dtype = dt}));
               },
               .input_shapes = {{2, 4}},
               .weight_names = {"d/kernel", "vector_u", "d/bias"}});
  check_layer({.label = "SpectralNormalization(Conv2D), 3 iterations",
               .make = [](k::DType dt) {
                 return ptr(L::SpectralNormalization(L::Conv2D(2, 2, {.name = "c", .dtype = dt}),
                                                     {.power_iterations = 3, .dtype = dt}));
               },
               .input_shapes = {{2, 4, 3, 2}},
               .weight_names = {"c/kernel", "vector_u", "c/bias"}});
}

TEST_CASE("ReversibleEmbedding: the reverse call, its mask and its errors; SpectralNormalization's errors") {
  L::ReversibleEmbedding emb(5, 2, {.embeddings_initializer = "ones", .mask_zero = true, .logit_soft_cap = 1.5});
  const k::Tensor ids(std::vector<int64_t>{0, 3, 4}, k::Shape{1, 3});
  const k::Tensor h = emb(ids);
  CHECK(k::get_keras_mask(h).defined());  // the forward call is Embedding's, mask included
  const k::Tensor logits = emb(h, L::reverse_call());
  CHECK(logits.shape() == k::Shape{1, 3, 5});
  CHECK_FALSE(k::get_keras_mask(logits).defined());  // Keras sets no mask on a reverse call
  // Tied ones: every logit is tanh(2 / 1.5) * 1.5.
  for (float v : logits.to_vector<float>()) CHECK(v == doctest::Approx(std::tanh(2.0 / 1.5) * 1.5));
  CHECK_THROWS_WITH_AS(emb(k::ones({1, 3}), L::reverse_call()), doctest::Contains("received shape (1, 3)"),
                       k::ValueError);
  k::CallOptions bad;
  bad.kwargs.set("reverse", k::CallArg::value_json("3"));
  CHECK_THROWS_WITH_AS(emb(h, bad), doctest::Contains("reverse must be a bool"), k::ValueError);
  L::ReversibleEmbedding untied(4, 3, {.tie_weights = false});
  untied(k::Tensor(std::vector<int64_t>{0, 3, 1}, k::Shape{1, 3}));
  REQUIRE(untied->weights().size() == 2);
  CHECK(untied->weights()[1].path() == untied->name() + "/reverse_embeddings");
  CHECK(untied->weights()[1].shape() == k::Shape{3, 4});
  // Keras leaves an all-zero kernel, and vector_u, as they are (ops.cond): no division by sigma = 0.
  L::SpectralNormalization zero(L::Dense(2, {.kernel_initializer = "zeros"}));
  const k::Tensor x = k::ones({3, 4});
  zero(x, false);
  const auto u0 = zero->vector_u().value().to_vector<float>();
  for (float v : zero(x, true).to_vector<float>()) CHECK(v == 0.0f);
  CHECK(zero->vector_u().value().to_vector<float>() == u0);
  CHECK_THROWS_WITH_AS(L::SpectralNormalization(L::Dense(2), {.power_iterations = 0}),
                       doctest::Contains("`power_iterations` should be greater than zero. Received: `power_iterations=0`"),
                       k::ValueError);
  CHECK_THROWS_WITH_AS(L::SpectralNormalization(L::Flatten{})(k::ones({2, 3})),
                       doctest::Contains("Flatten object has no attribute 'kernel' nor 'embeddings'"), k::ValueError);
}

TEST_CASE("VariableValueScope: reads give the mapped tensor, and gradients reach the variable through it") {
  k::Variable w(k::Tensor(std::vector<double>{1.0, 2.0}, k::Shape{2}));
  k::GradientTape tape;
  const k::Tensor tripled = w.value() * 3.0;
  k::Tensor y;
  {
    k::VariableValueScope scope(w, tripled);
    y = k::sum(w.value() * w.value());  // sum((3w)^2): dy/dw = 18 w
  }
  const auto g = tape.gradient(y, std::vector<k::Variable>{w});
  REQUIRE(g[0].has_value());
  CHECK(g[0]->to_vector<double>() == std::vector<double>{18.0, 36.0});
  CHECK(w.value().to_vector<double>() == std::vector<double>{1.0, 2.0});  // the variable is not written
  CHECK_THROWS_WITH_AS(k::VariableValueScope(w, k::ones({3}, k::float64)), doctest::Contains("holds float64 (2,)"),
                       k::ValueError);
}

TEST_CASE("StochasticDepth in training keeps or drops each sample's whole path") {
  k::random::set_seed(2);
  const k::Tensor x = k::ones({64, 3, 5});
  const k::Tensor y = L::StochasticDepth(0.25)(x, true);
  // Each sample is all 0 or all 1/0.75.
  auto v = y.to_vector<float>();
  int kept = 0;
  for (int s = 0; s < 64; ++s) {
    const float first = v[static_cast<std::size_t>(s) * 15];
    CHECK((first == 0.0f || first == doctest::Approx(1.0 / 0.75)));
    for (int j = 1; j < 15; ++j) CHECK(v[static_cast<std::size_t>(s) * 15 + j] == first);
    kept += first != 0.0f;
  }
  CHECK(kept > 32);
  CHECK(kept < 64);
  CHECK_THROWS_AS(L::LayerScale(1e-6, 8)(k::ones({2, 4})), k::ShapeError);
}

}  // namespace test_harness_catalogue

// Every built-in layer through the one harness (layer_harness.h).
#include <doctest/doctest.h>

#include "kiln/layers.h"
#include "kiln/ops/ops.h"
#include "kiln/nn/regularizers.h"
#include "layer_harness.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_layer_harness {

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

TEST_CASE("harness: Dense") {
  check_layer({.label = "Dense",
               .make = [](k::DType dt) { return ptr(L::Dense(4, {.activation = "tanh", .dtype = dt})); },
               .input_shapes = {{3, 5}},
               .weight_names = {"kernel", "bias"}});
  check_layer({.label = "Dense rank 3, no bias, L2",
               .make =
                   [](k::DType dt) {
                     return ptr(L::Dense(3, {.use_bias = false, .kernel_regularizer = k::regularizers::L2(0.02),
                                             .activity_regularizer = k::regularizers::L1(0.01), .dtype = dt}));
                   },
               .input_shapes = {{2, 4, 5}},
               .weight_names = {"kernel"}});
}

TEST_CASE("harness: Conv2D and Conv1D") {
  check_layer({.label = "Conv2D valid",
               .make = [](k::DType dt) { return ptr(L::Conv2D(3, 3, {.activation = "relu", .dtype = dt})); },
               .input_shapes = {{2, 6, 5, 2}},
               .weight_names = {"kernel", "bias"}});
  check_layer({.label = "Conv2D same strides 2",
               .make = [](k::DType dt) { return ptr(L::Conv2D(2, {3, 2}, {.strides = 2, .padding = "same", .dtype = dt})); },
               .input_shapes = {{2, 7, 6, 3}},
               .weight_names = {"kernel", "bias"}});
  check_layer({.label = "Conv2D dilation 2",
               .make = [](k::DType dt) { return ptr(L::Conv2D(2, 2, {.dilation_rate = 2, .dtype = dt})); },
               .input_shapes = {{1, 6, 6, 2}},
               .weight_names = {"kernel", "bias"}});
  check_layer({.label = "Conv2D groups 2",
               .make = [](k::DType dt) { return ptr(L::Conv2D(4, 3, {.padding = "same", .groups = 2, .dtype = dt})); },
               .input_shapes = {{2, 5, 5, 4}},
               .weight_names = {"kernel", "bias"}});
  check_layer({.label = "Conv2D channels_first",
               .make = [](k::DType dt) { return ptr(L::Conv2D(2, 3, {.data_format = "channels_first", .dtype = dt})); },
               .input_shapes = {{2, 3, 5, 5}},
               .weight_names = {"kernel", "bias"}});
  check_layer({.label = "Conv1D causal",
               .make = [](k::DType dt) { return ptr(L::Conv1D(3, 3, {.padding = "causal", .dilation_rate = 2, .dtype = dt})); },
               .input_shapes = {{2, 7, 2}},
               .weight_names = {"kernel", "bias"}});
  check_layer({.label = "Conv1D same strides",
               .make = [](k::DType dt) { return ptr(L::Conv1D(2, 3, {.strides = 2, .padding = "same", .dtype = dt})); },
               .input_shapes = {{2, 7, 3}},
               .weight_names = {"kernel", "bias"}});
}

TEST_CASE("harness: pooling") {
  check_layer({.label = "MaxPooling2D",
               .make = [](k::DType dt) { return ptr(L::MaxPooling2D(2, {.dtype = dt})); },
               .input_shapes = {{2, 6, 4, 3}}});
  check_layer({.label = "AveragePooling2D same",
               .make = [](k::DType dt) { return ptr(L::AveragePooling2D(3, {.strides = 2, .padding = "same", .dtype = dt})); },
               .input_shapes = {{2, 5, 5, 2}}});
  check_layer({.label = "MaxPooling1D",
               .make = [](k::DType dt) { return ptr(L::MaxPooling1D(3, {.strides = 2, .dtype = dt})); },
               .input_shapes = {{2, 9, 2}}});
  check_layer({.label = "AveragePooling1D",
               .make = [](k::DType dt) { return ptr(L::AveragePooling1D(2, {.padding = "same", .dtype = dt})); },
               .input_shapes = {{2, 5, 2}}});
  check_layer({.label = "GlobalAveragePooling2D",
               .make = [](k::DType dt) { return ptr(L::GlobalAveragePooling2D({.dtype = dt})); },
               .input_shapes = {{2, 3, 4, 5}}});
  check_layer({.label = "GlobalMaxPooling2D keepdims",
               .make = [](k::DType dt) { return ptr(L::GlobalMaxPooling2D({.keepdims = true, .dtype = dt})); },
               .input_shapes = {{2, 3, 4, 5}}});
  check_layer({.label = "GlobalAveragePooling1D",
               .make = [](k::DType dt) { return ptr(L::GlobalAveragePooling1D({.dtype = dt})); },
               .input_shapes = {{2, 6, 3}}});
  check_layer({.label = "GlobalMaxPooling1D",
               .make = [](k::DType dt) { return ptr(L::GlobalMaxPooling1D({.dtype = dt})); },
               .input_shapes = {{2, 6, 3}}});
}

TEST_CASE("harness: reshaping") {
  check_layer({.label = "UpSampling1D",
               .make = [](k::DType dt) { return ptr(L::UpSampling1D(3, {.dtype = dt})); },
               .input_shapes = {{2, 4, 3}}});
  check_layer({.label = "Flatten",
               .make = [](k::DType dt) { return ptr(L::Flatten({.dtype = dt})); },
               .input_shapes = {{2, 3, 4, 5}}});
  check_layer({.label = "Flatten channels_first",
               .make = [](k::DType dt) { return ptr(L::Flatten({.data_format = "channels_first", .dtype = dt})); },
               .input_shapes = {{2, 3, 4, 5}}});
  check_layer({.label = "Reshape",
               .make = [](k::DType dt) { return ptr(L::Reshape({-1, 4}, {.dtype = dt})); },
               .input_shapes = {{2, 12}}});
  check_layer({.label = "Permute",
               .make = [](k::DType dt) { return ptr(L::Permute({2, 1}, {.dtype = dt})); },
               .input_shapes = {{2, 3, 4}}});
  check_layer({.label = "RepeatVector",
               .make = [](k::DType dt) { return ptr(L::RepeatVector(3, {.dtype = dt})); },
               .input_shapes = {{2, 4}}});
  check_layer({.label = "ZeroPadding2D",
               .make = [](k::DType dt) { return ptr(L::ZeroPadding2D({1, 2}, {0, 1}, {.dtype = dt})); },
               .input_shapes = {{2, 3, 3, 2}}});
}

TEST_CASE("harness: Dropout, normalization, activations") {
  check_layer({.label = "Dropout", .make = [](k::DType dt) { return ptr(L::Dropout(0.3, {.dtype = dt})); }, .input_shapes = {{4, 5}}});
  check_layer({.label = "BatchNormalization training",
               .make = [](k::DType dt) { return ptr(L::BatchNormalization({.dtype = dt})); },
               .input_shapes = {{6, 3}},
               .weight_names = {"gamma", "beta", "moving_mean", "moving_variance"},
               .training = true});
  check_layer({.label = "BatchNormalization inference axis 1",
               .make = [](k::DType dt) { return ptr(L::BatchNormalization({.axis = 1, .momentum = 0.9, .dtype = dt})); },
               .input_shapes = {{4, 3, 2, 2}},
               .weight_names = {"gamma", "beta", "moving_mean", "moving_variance"}});
  check_layer({.label = "BatchNormalization no scale, conv input",
               .make = [](k::DType dt) { return ptr(L::BatchNormalization({.scale = false, .dtype = dt})); },
               .input_shapes = {{3, 4, 4, 2}},
               .weight_names = {"beta", "moving_mean", "moving_variance"},
               .training = true});
  check_layer({.label = "LayerNormalization",
               .make = [](k::DType dt) { return ptr(L::LayerNormalization({.dtype = dt})); },
               .input_shapes = {{3, 2, 5}},
               .weight_names = {"gamma", "beta"}});
  check_layer({.label = "Activation", .make = [](k::DType dt) { return ptr(L::Activation("gelu", {.dtype = dt})); }, .input_shapes = {{3, 4}}});
  check_layer({.label = "ReLU",
               .make = [](k::DType dt) { return ptr(L::ReLU({.max_value = 1.5, .negative_slope = 0.1, .threshold = 0.2, .dtype = dt})); },
               .input_shapes = {{3, 4}}});
  check_layer({.label = "Softmax", .make = [](k::DType dt) { return ptr(L::Softmax({.axis = 1, .dtype = dt})); }, .input_shapes = {{3, 4, 2}}});
  check_layer({.label = "LeakyReLU", .make = [](k::DType dt) { return ptr(L::LeakyReLU(0.3, {.dtype = dt})); }, .input_shapes = {{3, 4}}});
  check_layer({.label = "ELU", .make = [](k::DType dt) { return ptr(L::ELU(0.7, {.dtype = dt})); }, .input_shapes = {{3, 4}}});
  check_layer({.label = "PReLU",
               .make = [](k::DType dt) { return ptr(L::PReLU({.alpha_initializer = "ones", .shared_axes = {1}, .dtype = dt})); },
               .input_shapes = {{3, 4, 2}},
               .weight_names = {"alpha"}});
}

TEST_CASE("harness: merge layers") {
  auto merge = [](std::string label, std::function<k::LayerPtr(k::DType)> make, std::vector<k::Shape> shapes) {
    check_layer({.label = label, .make = make, .input_shapes = shapes, .list_input = true});
  };
  merge("Add", [](k::DType dt) { return ptr(L::Add({.dtype = dt})); }, {{2, 3}, {2, 3}, {2, 3}});
  merge("Add broadcast", [](k::DType dt) { return ptr(L::Add({.dtype = dt})); }, {{2, 3, 4}, {2, 1, 4}});
  merge("Subtract", [](k::DType dt) { return ptr(L::Subtract({.dtype = dt})); }, {{2, 3}, {2, 3}});
  merge("Multiply", [](k::DType dt) { return ptr(L::Multiply({.dtype = dt})); }, {{2, 3}, {2, 3}});
  merge("Average", [](k::DType dt) { return ptr(L::Average({.dtype = dt})); }, {{2, 3}, {2, 3}});
  merge("Maximum", [](k::DType dt) { return ptr(L::Maximum({.dtype = dt})); }, {{2, 3}, {2, 3}});
  merge("Minimum", [](k::DType dt) { return ptr(L::Minimum({.dtype = dt})); }, {{2, 3}, {2, 3}});
  merge("Concatenate", [](k::DType dt) { return ptr(L::Concatenate({.axis = 1, .dtype = dt})); }, {{2, 3, 2}, {2, 1, 2}});
  merge("Dot 2D", [](k::DType dt) { return ptr(L::Dot(1, {.dtype = dt})); }, {{3, 4}, {3, 4}});
  merge("Dot 3D normalize", [](k::DType dt) { return ptr(L::Dot({2, 1}, {.normalize = true, .dtype = dt})); }, {{2, 3, 4}, {2, 4, 5}});
}

TEST_CASE("harness: Embedding and Lambda") {
  check_layer({.label = "Embedding",
               .make = [](k::DType dt) { return ptr(L::Embedding(10, 3, {.dtype = dt})); },
               .input_shapes = {{2, 5}},
               .weight_names = {"embeddings"},
               .integer_input = true,
               .int_high = 10,
               .learning_rate = 1.0});
  check_layer({.label = "Lambda",
               .make = [](k::DType dt) { return ptr(L::Lambda([](const k::Tensor& t) { return k::square(t) * 0.5; }, {.dtype = dt})); },
               .input_shapes = {{3, 4}},
               .config_round_trip = false});
}

}  // namespace test_layer_harness

// GPU parity of layers: each layer is built on the CPU, run forward and
// backward there, moved with layer->to(Device::cuda(0)), and run again on the
// same input; outputs and the gradients w.r.t. the input and every trainable
// weight must agree. To cover a new layer: add one layer_parity(...) line.
#include <doctest/doctest.h>

#include <kiln/kiln.h>

#include "layer_parity.h"

namespace k = kiln;
namespace L = kiln::layers;
using k::Tensor;
using namespace kiln::cudatest;

TEST_CASE("GPU parity: layers forward and backward") {
  KILN_REQUIRE_GPU("layer parity");
  const Tol conv{1e-3, 1e-4};
  layer_parity("Dense relu", [] { return L::Dense(16, {.activation = "relu"}); }, {8, 12});
  layer_parity("Dense tanh no bias", [] { return L::Dense(5, {.activation = "tanh", .use_bias = false}); }, {3, 4, 6});
  layer_parity("Conv2D same relu", [] { return L::Conv2D(8, 3, {.padding = "same", .activation = "relu"}); },
               {2, 9, 9, 3}, {.tol = conv});
  layer_parity("Conv2D strided", [] { return L::Conv2D(4, 3, {.strides = 2}); }, {2, 11, 10, 2}, {.tol = conv});
  layer_parity("Conv2D even kernel same", [] { return L::Conv2D(4, 2, {.padding = "same"}); }, {2, 8, 8, 3}, {.tol = conv});
  layer_parity("Conv1D", [] { return L::Conv1D(6, 3); }, {2, 12, 4}, {.tol = conv});
  layer_parity("MaxPooling2D", [] { return L::MaxPooling2D(); }, {2, 8, 8, 3});
  layer_parity("AveragePooling2D same", [] { return L::AveragePooling2D(3, {.strides = 2, .padding = "same"}); },
               {2, 7, 7, 3});
  layer_parity("MaxPooling1D", [] { return L::MaxPooling1D(); }, {2, 10, 3});
  layer_parity("GlobalAveragePooling2D", [] { return L::GlobalAveragePooling2D(); }, {2, 5, 5, 4});
  layer_parity("GlobalMaxPooling2D", [] { return L::GlobalMaxPooling2D(); }, {2, 5, 5, 4});
  layer_parity("Flatten", [] { return L::Flatten(); }, {2, 3, 4, 5});
  layer_parity("Reshape", [] { return L::Reshape({6, 2}); }, {2, 3, 4});
  layer_parity("Permute", [] { return L::Permute({2, 1}); }, {2, 3, 4});
  layer_parity("RepeatVector", [] { return L::RepeatVector(3); }, {2, 4});
  layer_parity("ZeroPadding2D", [] { return L::ZeroPadding2D(1); }, {2, 4, 4, 2});
  layer_parity("Dropout (inference)", [] { return L::Dropout(0.5); }, {4, 10});
  layer_parity("BatchNormalization (training)", [] { return L::BatchNormalization(); }, {16, 6}, {.training = true});
  layer_parity("BatchNormalization (inference)", [] { return L::BatchNormalization(); }, {16, 6});
  layer_parity("BatchNormalization NHWC", [] { return L::BatchNormalization(); }, {4, 5, 5, 3}, {.training = true});
  layer_parity("LayerNormalization", [] { return L::LayerNormalization(); }, {4, 10});
  layer_parity("Embedding", [] { return L::Embedding(10, 4); }, {3, 5}, {.int_input = true});
  layer_parity("Softmax", [] { return L::Softmax(); }, {4, 7});
  layer_parity("ReLU", [] { return L::ReLU(); }, {4, 7});
  layer_parity("LeakyReLU", [] { return L::LeakyReLU(); }, {4, 7});
  layer_parity("ELU", [] { return L::ELU(); }, {4, 7});
  layer_parity("PReLU", [] { return L::PReLU(); }, {4, 7});
  layer_parity("Activation gelu", [] { return L::Activation("gelu"); }, {4, 7});
  layer_parity("Activation selu", [] { return L::Activation("selu"); }, {4, 7});
}

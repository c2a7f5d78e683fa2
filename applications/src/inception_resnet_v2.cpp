// InceptionResNetV2, as keras.applications builds it (inception_resnet_v2.py):
// an Inception stem, then three stages of residual Inception blocks whose
// branch output is scaled by CustomScaleLayer before the addition. Most layers
// take Keras's automatic names, so they are created in Keras's order.
#include "app_builder.h"

namespace kiln::applications {

namespace L = kiln::layers;

namespace {

/// conv2d_bn: a convolution, then (without bias) a batch norm without scale,
/// then the activation; named `name`, `name_bn` and `name_ac` when named.
Tensor conv2d_bn(const Tensor& x, int filters, L::Size2 kernel, int stride = 1, const std::string& padding = "same",
                 const std::string& activation = "relu", bool use_bias = false, const std::string& name = "") {
  Tensor y = L::Conv2D(filters, kernel, {.strides = stride, .padding = padding, .use_bias = use_bias, .name = name})(x);
  if (!use_bias) y = L::BatchNormalization({.axis = 3, .scale = false, .name = name.empty() ? "" : name + "_bn"})(y);
  if (!activation.empty()) y = L::Activation(activation, {.name = name.empty() ? "" : name + "_ac"})(y);
  return y;
}

Tensor conv2d_bn(const Tensor& x, int filters, int kernel, int stride = 1, const std::string& padding = "same") {
  return conv2d_bn(x, filters, L::Size2(kernel, kernel), stride, padding);
}

std::vector<Tensor> block35_branches(const Tensor& x) {
  const Tensor b0 = conv2d_bn(x, 32, 1);
  const Tensor b1 = conv2d_bn(conv2d_bn(x, 32, 1), 32, 3);
  const Tensor b2 = conv2d_bn(conv2d_bn(conv2d_bn(x, 32, 1), 48, 3), 64, 3);
  return {b0, b1, b2};
}

std::vector<Tensor> block17_branches(const Tensor& x) {
  const Tensor b0 = conv2d_bn(x, 192, 1);
  Tensor b1 = conv2d_bn(x, 128, 1);
  b1 = conv2d_bn(b1, 160, L::Size2(1, 7));
  b1 = conv2d_bn(b1, 192, L::Size2(7, 1));
  return {b0, b1};
}

std::vector<Tensor> block8_branches(const Tensor& x) {
  const Tensor b0 = conv2d_bn(x, 192, 1);
  Tensor b1 = conv2d_bn(x, 192, 1);
  b1 = conv2d_bn(b1, 224, L::Size2(1, 3));
  b1 = conv2d_bn(b1, 256, L::Size2(3, 1));
  return {b0, b1};
}

/// inception_resnet_block: x + scale · conv(concat(branches)), then the activation.
Tensor inception_resnet_block(const Tensor& x, double scale, const std::string& type, int idx,
                              const std::string& activation = "relu") {
  const std::vector<Tensor> branches = type == "block35"   ? block35_branches(x)
                                       : type == "block17" ? block17_branches(x)
                                                           : block8_branches(x);
  const std::string name = type + "_" + std::to_string(idx);
  const Tensor mixed = L::Concatenate({.axis = 3, .name = name + "_mixed"})(branches);
  const Tensor up = conv2d_bn(mixed, static_cast<int>(x.shape()[3]), L::Size2(1, 1), 1, "same", "", true,
                              name + "_conv");
  Tensor y = L::CustomScaleLayer(scale)({x, up});
  if (!activation.empty()) y = L::Activation(activation, {.name = name + "_ac"})(y);
  return y;
}

Tensor max_pool(const Tensor& x) { return L::MaxPooling2D(3, {.strides = 2})(x); }

Tensor stem(const Tensor& input) {
  Tensor x = conv2d_bn(input, 32, 3, 2, "valid");
  x = conv2d_bn(x, 32, 3, 1, "valid");
  x = conv2d_bn(x, 64, 3);
  x = max_pool(x);
  x = conv2d_bn(x, 80, 1, 1, "valid");
  x = conv2d_bn(x, 192, 3, 1, "valid");
  x = max_pool(x);
  const Tensor b0 = conv2d_bn(x, 96, 1);
  const Tensor b1 = conv2d_bn(conv2d_bn(x, 48, 1), 64, 5);
  const Tensor b2 = conv2d_bn(conv2d_bn(conv2d_bn(x, 64, 1), 96, 3), 96, 3);
  const Tensor bp = conv2d_bn(L::AveragePooling2D(3, {.strides = 1, .padding = "same"})(x), 64, 1);
  return L::Concatenate({.axis = 3, .name = "mixed_5b"})({b0, b1, b2, bp});
}

/// mixed_6a and mixed_7a: the grid reductions between the stages.
Tensor reduction_a(const Tensor& x) {
  const Tensor b0 = conv2d_bn(x, 384, 3, 2, "valid");
  const Tensor b1 = conv2d_bn(conv2d_bn(conv2d_bn(x, 256, 1), 256, 3), 384, 3, 2, "valid");
  const Tensor bp = max_pool(x);
  return L::Concatenate({.axis = 3, .name = "mixed_6a"})({b0, b1, bp});
}

Tensor reduction_b(const Tensor& x) {
  const Tensor b0 = conv2d_bn(conv2d_bn(x, 256, 1), 384, 3, 2, "valid");
  const Tensor b1 = conv2d_bn(conv2d_bn(x, 256, 1), 288, 3, 2, "valid");
  const Tensor b2 = conv2d_bn(conv2d_bn(conv2d_bn(x, 256, 1), 288, 3), 320, 3, 2, "valid");
  const Tensor bp = max_pool(x);
  return L::Concatenate({.axis = 3, .name = "mixed_7a"})({b0, b1, b2, bp});
}

}  // namespace

ModelPtr InceptionResNetV2(const ApplicationOptions& o) {
  Tensor input = Input(detail::obtain_input_shape("InceptionResNetV2", o, 299, 75));
  Tensor x = stem(input);
  for (int i = 1; i <= 10; ++i) x = inception_resnet_block(x, 0.17, "block35", i);
  x = reduction_a(x);
  for (int i = 1; i <= 20; ++i) x = inception_resnet_block(x, 0.1, "block17", i);
  x = reduction_b(x);
  for (int i = 1; i <= 9; ++i) x = inception_resnet_block(x, 0.2, "block8", i);
  x = inception_resnet_block(x, 1.0, "block8", 10, "");
  x = conv2d_bn(x, 1536, L::Size2(1, 1), 1, "same", "relu", false, "conv_7b");
  return detail::finish(input, x, o, "inception_resnet_v2", {"avg_pool", "", ""});
}

}  // namespace kiln::applications

// DenseNet121, DenseNet169 and DenseNet201, as keras.applications builds them (densenet.py).
#include "app_builder.h"

namespace kiln::applications {

namespace L = kiln::layers;

namespace {

Tensor bn_relu(const std::string& name, const Tensor& x, const std::string& bn = "_bn", const std::string& relu = "_relu") {
  Tensor y = L::BatchNormalization({.axis = 3, .epsilon = 1.001e-5, .name = name + bn})(x);
  return L::Activation("relu", {.name = name + relu})(y);
}

/// conv_block: BN-relu-1x1 (4 x growth), BN-relu-3x3 (growth), concatenated to the input.
Tensor conv_block(const Tensor& x, int growth, const std::string& name) {
  Tensor y = bn_relu(name, x, "_0_bn", "_0_relu");
  y = L::Conv2D(4 * growth, 1, {.use_bias = false, .name = name + "_1_conv"})(y);
  y = bn_relu(name, y, "_1_bn", "_1_relu");
  y = L::Conv2D(growth, 3, {.padding = "same", .use_bias = false, .name = name + "_2_conv"})(y);
  return L::Concatenate({.axis = 3, .name = name + "_concat"})({x, y});
}

/// transition_block: BN-relu, a 1x1 convolution to half the channels, 2x2 average pooling.
Tensor transition_block(const Tensor& x, double reduction, const std::string& name) {
  Tensor y = bn_relu(name, x);
  y = L::Conv2D(static_cast<int>(static_cast<double>(y.shape()[3]) * reduction), 1,
                {.use_bias = false, .name = name + "_conv"})(y);
  return L::AveragePooling2D(2, {.strides = 2, .name = name + "_pool"})(y);
}

ModelPtr densenet(const std::string& cls, const std::string& default_name, const std::vector<int>& blocks,
                  const ApplicationOptions& o) {
  Tensor input = Input(detail::obtain_input_shape(cls, o, 224, 32));
  Tensor x = L::ZeroPadding2D(L::Size2(3, 3), L::Size2(3, 3))(input);
  x = L::Conv2D(64, 7, {.strides = 2, .use_bias = false, .name = "conv1_conv"})(x);
  x = bn_relu("conv1", x);
  x = L::ZeroPadding2D(L::Size2(1, 1), L::Size2(1, 1))(x);
  x = L::MaxPooling2D(3, {.strides = 2, .name = "pool1"})(x);
  for (int b = 0; b < 4; ++b) {
    for (int i = 0; i < blocks[b]; ++i)
      x = conv_block(x, 32, "conv" + std::to_string(b + 2) + "_block" + std::to_string(i + 1));
    if (b < 3) x = transition_block(x, 0.5, "pool" + std::to_string(b + 2));
  }
  x = L::Activation("relu", {.name = "relu"})(L::BatchNormalization({.axis = 3, .epsilon = 1.001e-5, .name = "bn"})(x));
  return detail::finish(input, x, o, default_name, {"avg_pool", "avg_pool", "max_pool"});
}

}  // namespace

ModelPtr DenseNet121(const ApplicationOptions& o) { return densenet("DenseNet121", "densenet121", {6, 12, 24, 16}, o); }
ModelPtr DenseNet169(const ApplicationOptions& o) { return densenet("DenseNet169", "densenet169", {6, 12, 32, 32}, o); }
ModelPtr DenseNet201(const ApplicationOptions& o) { return densenet("DenseNet201", "densenet201", {6, 12, 48, 32}, o); }

}  // namespace kiln::applications

// ResNet50/101/152 and their V2 (pre-activation) forms, as keras.applications
// builds them (resnet.py, resnet_v2.py).
#include "app_builder.h"

namespace kiln::applications {

namespace L = kiln::layers;

namespace {

constexpr double kEpsilon = 1.001e-5;

Tensor bn(const std::string& name, const Tensor& x) {
  return L::BatchNormalization({.axis = 3, .epsilon = kEpsilon, .name = name})(x);
}

Tensor conv(int filters, int kernel, int stride, const std::string& name, const Tensor& x, bool use_bias = true,
            const std::string& padding = "valid") {
  return L::Conv2D(filters, kernel, {.strides = stride, .padding = padding, .use_bias = use_bias, .name = name})(x);
}

/// residual_block_v1: a 1-3-1 bottleneck; the shortcut is a projection when asked.
Tensor block_v1(Tensor x, int filters, int stride, bool conv_shortcut, const std::string& name) {
  Tensor shortcut = x;
  if (conv_shortcut) shortcut = bn(name + "_0_bn", conv(4 * filters, 1, stride, name + "_0_conv", x));
  x = L::Activation("relu", {.name = name + "_1_relu"})(bn(name + "_1_bn", conv(filters, 1, stride, name + "_1_conv", x)));
  x = conv(filters, 3, 1, name + "_2_conv", x, true, "same");
  x = L::Activation("relu", {.name = name + "_2_relu"})(bn(name + "_2_bn", x));
  x = bn(name + "_3_bn", conv(4 * filters, 1, 1, name + "_3_conv", x));
  x = L::Add({.name = name + "_add"})({shortcut, x});
  return L::Activation("relu", {.name = name + "_out"})(x);
}

Tensor stack_v1(Tensor x, int filters, int blocks, int stride1, const std::string& name) {
  x = block_v1(x, filters, stride1, true, name + "_block1");
  for (int i = 2; i <= blocks; ++i) x = block_v1(x, filters, 1, false, name + "_block" + std::to_string(i));
  return x;
}

/// residual_block_v2: batch norm and relu before each convolution.
Tensor block_v2(Tensor x, int filters, int stride, bool conv_shortcut, const std::string& name) {
  Tensor preact = L::Activation("relu", {.name = name + "_preact_relu"})(bn(name + "_preact_bn", x));
  Tensor shortcut = x;
  if (conv_shortcut) shortcut = conv(4 * filters, 1, stride, name + "_0_conv", preact);
  else if (stride > 1) shortcut = L::MaxPooling2D(1, {.strides = stride})(x);
  x = conv(filters, 1, 1, name + "_1_conv", preact, false);
  x = L::Activation("relu", {.name = name + "_1_relu"})(bn(name + "_1_bn", x));
  x = L::ZeroPadding2D(L::Size2(1, 1), L::Size2(1, 1), {.name = name + "_2_pad"})(x);
  x = conv(filters, 3, stride, name + "_2_conv", x, false);
  x = L::Activation("relu", {.name = name + "_2_relu"})(bn(name + "_2_bn", x));
  x = conv(4 * filters, 1, 1, name + "_3_conv", x);
  return L::Add({.name = name + "_out"})({shortcut, x});
}

Tensor stack_v2(Tensor x, int filters, int blocks, int stride1, const std::string& name) {
  x = block_v2(x, filters, 1, true, name + "_block1");
  for (int i = 2; i < blocks; ++i) x = block_v2(x, filters, 1, false, name + "_block" + std::to_string(i));
  return block_v2(x, filters, stride1, false, name + "_block" + std::to_string(blocks));
}

/// ResNet(): the stem, four stacks of `blocks`, and the top.
ModelPtr resnet(const std::string& cls, const std::string& default_name, const std::vector<int>& blocks, bool preact,
                const ApplicationOptions& o) {
  Tensor input = Input(detail::obtain_input_shape(cls, o, 224, 32));
  Tensor x = L::ZeroPadding2D(L::Size2(3, 3), L::Size2(3, 3), {.name = "conv1_pad"})(input);
  x = conv(64, 7, 2, "conv1_conv", x);
  if (!preact) x = L::Activation("relu", {.name = "conv1_relu"})(bn("conv1_bn", x));
  x = L::ZeroPadding2D(L::Size2(1, 1), L::Size2(1, 1), {.name = "pool1_pad"})(x);
  x = L::MaxPooling2D(3, {.strides = 2, .name = "pool1_pool"})(x);
  const int filters[] = {64, 128, 256, 512};
  for (int s = 0; s < 4; ++s) {
    const std::string name = "conv" + std::to_string(s + 2);
    if (preact) x = stack_v2(x, filters[s], blocks[s], s == 3 ? 1 : 2, name);
    else x = stack_v1(x, filters[s], blocks[s], s == 0 ? 1 : 2, name);
  }
  if (preact) x = L::Activation("relu", {.name = "post_relu"})(bn("post_bn", x));
  return detail::finish(input, x, o, default_name, {"avg_pool", "avg_pool", "max_pool"});
}

}  // namespace

ModelPtr ResNet50(const ApplicationOptions& o) { return resnet("ResNet50", "resnet50", {3, 4, 6, 3}, false, o); }
ModelPtr ResNet101(const ApplicationOptions& o) { return resnet("ResNet101", "resnet101", {3, 4, 23, 3}, false, o); }
ModelPtr ResNet152(const ApplicationOptions& o) { return resnet("ResNet152", "resnet152", {3, 8, 36, 3}, false, o); }
ModelPtr ResNet50V2(const ApplicationOptions& o) { return resnet("ResNet50V2", "resnet50v2", {3, 4, 6, 3}, true, o); }
ModelPtr ResNet101V2(const ApplicationOptions& o) {
  return resnet("ResNet101V2", "resnet101v2", {3, 4, 23, 3}, true, o);
}
ModelPtr ResNet152V2(const ApplicationOptions& o) {
  return resnet("ResNet152V2", "resnet152v2", {3, 8, 36, 3}, true, o);
}

}  // namespace kiln::applications

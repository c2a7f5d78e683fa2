// MobileNet (V1), as keras.applications builds it (mobilenet.py): a strided
// convolution, then 13 blocks of depthwise and pointwise convolutions, each
// followed by BatchNormalization and ReLU6; the classifier is a 1x1
// convolution over the pooled features.
#include <cstdio>

#include "app_builder.h"
#include "kiln/core/error.h"

namespace kiln::applications {

namespace L = kiln::layers;

namespace {

Tensor conv_block(const Tensor& inputs, int filters, double alpha) {
  Tensor x = L::Conv2D(static_cast<int>(filters * alpha), 3,
                       {.strides = 2, .padding = "same", .use_bias = false, .name = "conv1"})(inputs);
  x = L::BatchNormalization({.axis = -1, .name = "conv1_bn"})(x);
  return L::ReLU({.max_value = 6.0, .name = "conv1_relu"})(x);
}

Tensor depthwise_conv_block(const Tensor& inputs, int filters, double alpha, int depth_multiplier, int stride,
                            int block_id) {
  const std::string id = std::to_string(block_id);
  Tensor x = inputs;
  // Keras pads stride-2 blocks on the bottom and right only, then convolves "valid".
  if (stride != 1) x = L::ZeroPadding2D(L::Size2(0, 1), L::Size2(0, 1), {.name = "conv_pad_" + id})(x);
  x = L::DepthwiseConv2D(3, {.strides = stride, .padding = stride == 1 ? "same" : "valid",
                             .depth_multiplier = depth_multiplier, .use_bias = false, .name = "conv_dw_" + id})(x);
  x = L::BatchNormalization({.axis = -1, .name = "conv_dw_" + id + "_bn"})(x);
  x = L::ReLU({.max_value = 6.0, .name = "conv_dw_" + id + "_relu"})(x);
  x = L::Conv2D(static_cast<int>(filters * alpha), 1,
                {.padding = "same", .use_bias = false, .name = "conv_pw_" + id})(x);
  x = L::BatchNormalization({.axis = -1, .name = "conv_pw_" + id + "_bn"})(x);
  return L::ReLU({.max_value = 6.0, .name = "conv_pw_" + id + "_relu"})(x);
}

}  // namespace

ModelPtr MobileNet(const ApplicationOptions& o) {
  // Keras takes a square input of 128, 160, 192 or 224 as the default size;
  // with a given input_shape that only changes the weights file it would fetch.
  const Shape shape = detail::obtain_input_shape("MobileNet", o, 224, 32);
  const double alpha = o.alpha;
  if (!(alpha > 0)) throw ValueError("MobileNet: `alpha` must be positive. Received: alpha=" + detail::number_text(alpha));
  if (o.depth_multiplier < 1)
    throw ValueError("MobileNet: `depth_multiplier` must be at least 1. Received: depth_multiplier=" +
                     std::to_string(o.depth_multiplier));
  Tensor input = Input(shape);
  Tensor x = conv_block(input, 32, alpha);
  struct Block {
    int filters, stride;
  };
  const Block blocks[] = {{64, 1},  {128, 2}, {128, 1}, {256, 2}, {256, 1}, {512, 2},  {512, 1},
                          {512, 1}, {512, 1}, {512, 1}, {512, 1}, {1024, 2}, {1024, 1}};
  for (int i = 0; i < 13; ++i)
    x = depthwise_conv_block(x, blocks[i].filters, alpha, o.depth_multiplier, blocks[i].stride, i + 1);
  char name[64];
  std::snprintf(name, sizeof name, "mobilenet_%.2f_", alpha);
  const std::string default_name = name + (shape[0] < 0 ? std::string("None") : std::to_string(shape[0]));
  if (!o.include_top) return detail::finish(input, x, o, default_name, {});
  x = L::GlobalAveragePooling2D({.keepdims = true})(x);
  x = L::Dropout(o.dropout.value_or(1e-3), {.name = "dropout"})(x);
  x = L::Conv2D(static_cast<int>(o.classes), 1, {.padding = "same", .name = "conv_preds"})(x);
  x = L::Reshape(Shape{o.classes}, {.name = "reshape_2"})(x);
  const std::string act = o.classifier_activation.empty() ? "linear" : o.classifier_activation;
  x = L::Activation(act, {.name = "predictions"})(x);
  return detail::make_model(input, x, o, default_name);
}

}  // namespace kiln::applications

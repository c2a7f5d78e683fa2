// MobileNetV2, as keras.applications builds it (mobilenet_v2.py).
#include <cstdio>

#include "app_builder.h"
#include "kiln/core/error.h"

namespace kiln::applications {

namespace L = kiln::layers;

namespace {

/// _make_divisible: v rounded to a multiple of `divisor`, never more than 10% down.
int make_divisible(double v, int divisor) {
  int n = std::max(divisor, static_cast<int>(v + divisor / 2.0) / divisor * divisor);
  if (n < 0.9 * v) n += divisor;
  return n;
}

Tensor bn(const std::string& name, const Tensor& x) {
  return L::BatchNormalization({.axis = -1, .momentum = 0.999, .epsilon = 1e-3, .name = name})(x);
}

Tensor relu6(const std::string& name, const Tensor& x) { return L::ReLU({.max_value = 6.0, .name = name})(x); }

/// _inverted_res_block: expand (except block 0), depthwise, project; a residual
/// when the shapes allow.
Tensor inverted_res_block(const Tensor& inputs, int expansion, int stride, double alpha, int filters, int block_id) {
  const int64_t in_channels = inputs.shape()[-1];
  const int pointwise = make_divisible(static_cast<int>(filters * alpha), 8);
  std::string prefix = "block_" + std::to_string(block_id) + "_";
  Tensor x = inputs;
  if (block_id) {
    x = L::Conv2D(static_cast<int>(expansion * in_channels), 1,
                  {.padding = "same", .use_bias = false, .name = prefix + "expand"})(x);
    x = relu6(prefix + "expand_relu", bn(prefix + "expand_BN", x));
  } else {
    prefix = "expanded_conv_";
  }
  if (stride == 2) {
    const auto [h, w] = detail::correct_pad(x, 3);
    x = L::ZeroPadding2D(h, w, {.name = prefix + "pad"})(x);
  }
  x = L::DepthwiseConv2D(3, {.strides = stride, .padding = stride == 1 ? "same" : "valid", .use_bias = false,
                             .name = prefix + "depthwise"})(x);
  x = relu6(prefix + "depthwise_relu", bn(prefix + "depthwise_BN", x));
  x = L::Conv2D(pointwise, 1, {.padding = "same", .use_bias = false, .name = prefix + "project"})(x);
  x = bn(prefix + "project_BN", x);
  if (in_channels == pointwise && stride == 1) return L::Add({.name = prefix + "add"})({inputs, x});
  return x;
}

}  // namespace

ModelPtr MobileNetV2(const ApplicationOptions& o) {
  const Shape shape = detail::obtain_input_shape("MobileNetV2", o, 224, 32);
  Tensor input = Input(shape);
  const double alpha = o.alpha;
  if (!(alpha > 0)) throw ValueError("MobileNetV2: `alpha` must be positive. Received: alpha=" + detail::number_text(alpha));
  Tensor x = L::Conv2D(make_divisible(32 * alpha, 8), 3,
                       {.strides = 2, .padding = "same", .use_bias = false, .name = "Conv1"})(input);
  x = relu6("Conv1_relu", bn("bn_Conv1", x));
  struct Block {
    int filters, stride, expansion;
  };
  const Block blocks[] = {{16, 1, 1},  {24, 2, 6},  {24, 1, 6},  {32, 2, 6},  {32, 1, 6},  {32, 1, 6},
                          {64, 2, 6},  {64, 1, 6},  {64, 1, 6},  {64, 1, 6},  {96, 1, 6},  {96, 1, 6},
                          {96, 1, 6},  {160, 2, 6}, {160, 1, 6}, {160, 1, 6}, {320, 1, 6}};
  for (int i = 0; i < 17; ++i)
    x = inverted_res_block(x, blocks[i].expansion, blocks[i].stride, alpha, blocks[i].filters, i);
  const int last = alpha > 1.0 ? make_divisible(1280 * alpha, 8) : 1280;
  x = L::Conv2D(last, 1, {.use_bias = false, .name = "Conv_1"})(x);
  x = relu6("out_relu", bn("Conv_1_bn", x));
  // Keras's default name: mobilenetv2_<alpha with two decimals>_<rows>, Python's None for unknown rows.
  char name[64];
  std::snprintf(name, sizeof name, "mobilenetv2_%.2f_", alpha);
  const std::string rows = shape[0] < 0 ? "None" : std::to_string(shape[0]);
  return detail::finish(input, x, o, name + rows, {});
}

}  // namespace kiln::applications

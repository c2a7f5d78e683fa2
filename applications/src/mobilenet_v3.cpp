// MobileNetV3Small and MobileNetV3Large, as keras.applications builds them
// (mobilenet_v3.py): inverted residual blocks with optional squeeze-excite,
// hard-swish activations, and the rescaling to [-1, 1] inside the model.
// Keras writes hard_sigmoid as raw keras.ops arithmetic around a ReLU layer,
// so the builder records the same operation nodes.
#include <functional>
#include <nlohmann/json.hpp>

#include "app_builder.h"
#include "kiln/core/error.h"
#include "kiln/nn/operation_layer.h"

namespace kiln::applications {

namespace L = kiln::layers;

namespace {

using Activation = std::function<Tensor(const Tensor&)>;

/// _depth: v rounded to a multiple of 8, never more than 10% down.
int depth(double v) {
  int n = std::max(8, static_cast<int>(v + 4.0) / 8 * 8);
  if (n < 0.9 * v) n += 8;
  return n;
}

Tensor relu(const Tensor& x) { return L::ReLU()(x); }

Tensor hard_swish(const Tensor& x) { return L::Activation("hard_swish")(x); }

Tensor hard_sigmoid(const Tensor& x) {
  Tensor y = keras_op("Add", {x}, {}, R"([{"__kiln_tensor__": 0}, 3.0])");
  y = L::ReLU({.max_value = 6.0})(y);
  return keras_op("Multiply", {y}, {}, R"([{"__kiln_tensor__": 0}, 0.16666666666666666])");
}

Tensor bn(const std::string& name, const Tensor& x) {
  return L::BatchNormalization({.axis = -1, .momentum = 0.999, .epsilon = 1e-3, .name = name})(x);
}

Tensor se_block(const Tensor& inputs, int filters, double se_ratio, const std::string& prefix) {
  Tensor x = L::GlobalAveragePooling2D({.keepdims = true, .name = prefix + "squeeze_excite_avg_pool"})(inputs);
  x = L::Conv2D(depth(filters * se_ratio), 1, {.padding = "same", .name = prefix + "squeeze_excite_conv"})(x);
  x = L::ReLU({.name = prefix + "squeeze_excite_relu"})(x);
  x = L::Conv2D(filters, 1, {.padding = "same", .name = prefix + "squeeze_excite_conv_1"})(x);
  x = hard_sigmoid(x);
  return L::Multiply({.name = prefix + "squeeze_excite_mul"})({inputs, x});
}

struct Block {
  double expansion;
  int filters;  // before the width multiplier
  int kernel;   // 0: the variant's kernel (5, or 3 when minimalistic)
  int stride;
  bool se;           // squeeze-excite unless minimalistic
  bool variant_activation;  // the variant's (hard-swish, or ReLU when minimalistic); otherwise ReLU
};

Tensor inverted_res_block(const Tensor& inputs, double expansion, int filters, int kernel, int stride,
                          double se_ratio, const Activation& activation, int block_id) {
  const int64_t infilters = inputs.shape()[-1];
  std::string prefix = "expanded_conv_";
  Tensor x = inputs;
  if (block_id) {
    prefix = "expanded_conv_" + std::to_string(block_id) + "_";
    x = L::Conv2D(depth(infilters * expansion), 1, {.padding = "same", .use_bias = false, .name = prefix + "expand"})(x);
    x = activation(bn(prefix + "expand_bn", x));
  }
  if (stride == 2) {
    const auto [h, w] = detail::correct_pad(x, kernel);
    x = L::ZeroPadding2D(h, w, {.name = prefix + "depthwise_pad"})(x);
  }
  x = L::DepthwiseConv2D(kernel, {.strides = stride, .padding = stride == 1 ? "same" : "valid", .use_bias = false,
                                  .name = prefix + "depthwise"})(x);
  x = activation(bn(prefix + "depthwise_bn", x));
  if (se_ratio > 0) x = se_block(x, depth(infilters * expansion), se_ratio, prefix);
  x = L::Conv2D(filters, 1, {.padding = "same", .use_bias = false, .name = prefix + "project"})(x);
  x = bn(prefix + "project_bn", x);
  if (stride == 1 && infilters == filters) x = L::Add({.name = prefix + "add"})({inputs, x});
  return x;
}

ModelPtr mobilenet_v3(const std::vector<Block>& blocks, int last_point_ch, const ApplicationOptions& o,
                      const std::string& cls) {
  const Shape shape = detail::obtain_input_shape(cls, o, 224, 32);
  const double alpha = o.alpha;
  if (!(alpha > 0)) throw ValueError(cls + ": `alpha` must be positive. Received: alpha=" + detail::number_text(alpha));
  const int kernel = o.minimalistic ? 3 : 5;
  const double se_ratio = o.minimalistic ? 0.0 : 0.25;
  const Activation activation = o.minimalistic ? Activation(relu) : Activation(hard_swish);
  Tensor input = Input(shape);
  Tensor x = input;
  if (o.include_preprocessing) x = L::Rescaling(1.0 / 127.5, {.offset = -1.0})(x);
  x = L::Conv2D(16, 3, {.strides = 2, .padding = "same", .use_bias = false, .name = "conv"})(x);
  x = activation(bn("conv_bn", x));
  for (size_t i = 0; i < blocks.size(); ++i) {
    const Block& b = blocks[i];
    x = inverted_res_block(x, b.expansion, depth(b.filters * alpha), b.kernel ? b.kernel : kernel, b.stride,
                           b.se ? se_ratio : 0.0, b.variant_activation ? activation : Activation(relu),
                           static_cast<int>(i));
  }
  const int last_conv_ch = depth(static_cast<double>(x.shape()[-1]) * 6);
  if (alpha > 1.0) last_point_ch = depth(last_point_ch * alpha);
  x = L::Conv2D(last_conv_ch, 1, {.padding = "same", .use_bias = false, .name = "conv_1"})(x);
  x = activation(bn("conv_1_bn", x));
  const std::string name = o.name.empty() ? cls : o.name;
  if (!o.include_top) return detail::finish(input, x, o, name, {"", "avg_pool", "max_pool"});
  x = L::GlobalAveragePooling2D({.keepdims = true})(x);
  x = L::Conv2D(last_point_ch, 1, {.padding = "same", .use_bias = true, .name = "conv_2"})(x);
  x = activation(x);
  const double rate = o.dropout.value_or(0.2);
  if (rate > 0) x = L::Dropout(rate)(x);
  x = L::Conv2D(static_cast<int>(o.classes), 1, {.padding = "same", .name = "logits"})(x);
  x = L::Flatten()(x);
  x = L::Activation(o.classifier_activation.empty() ? "linear" : o.classifier_activation, {.name = "predictions"})(x);
  return detail::make_model(input, x, o, name);
}

}  // namespace

ModelPtr MobileNetV3Small(const ApplicationOptions& o) {
  // A kernel of 0 and `variant` take the variant's kernel and activation;
  // elsewhere Keras fixes a 3x3 kernel or ReLU.
  const bool relu_only = false, variant = true;
  return mobilenet_v3({{1, 16, 3, 2, true, relu_only},
                       {72.0 / 16, 24, 3, 2, false, relu_only},
                       {88.0 / 24, 24, 3, 1, false, relu_only},
                       {4, 40, 0, 2, true, variant},
                       {6, 40, 0, 1, true, variant},
                       {6, 40, 0, 1, true, variant},
                       {3, 48, 0, 1, true, variant},
                       {3, 48, 0, 1, true, variant},
                       {6, 96, 0, 2, true, variant},
                       {6, 96, 0, 1, true, variant},
                       {6, 96, 0, 1, true, variant}},
                      1024, o, "MobileNetV3Small");
}

ModelPtr MobileNetV3Large(const ApplicationOptions& o) {
  const bool relu_only = false, variant = true;
  return mobilenet_v3({{1, 16, 3, 1, false, relu_only},
                       {4, 24, 3, 2, false, relu_only},
                       {3, 24, 3, 1, false, relu_only},
                       {3, 40, 0, 2, true, relu_only},
                       {3, 40, 0, 1, true, relu_only},
                       {3, 40, 0, 1, true, relu_only},
                       {6, 80, 3, 2, false, variant},
                       {2.5, 80, 3, 1, false, variant},
                       {2.3, 80, 3, 1, false, variant},
                       {2.3, 80, 3, 1, false, variant},
                       {6, 112, 3, 1, true, variant},
                       {6, 112, 3, 1, true, variant},
                       {6, 160, 0, 2, true, variant},
                       {6, 160, 0, 1, true, variant},
                       {6, 160, 0, 1, true, variant}},
                      1280, o, "MobileNetV3Large");
}

}  // namespace kiln::applications

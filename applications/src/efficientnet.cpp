// EfficientNetB0 to B7, as keras.applications builds them (efficientnet.py):
// a rescaling and (adapted) normalisation stem, then seven stages of inverted
// residual blocks with squeeze-excite, scaled in width and depth per variant.
#include <algorithm>
#include <cmath>
#include <iterator>

#include "efficientnet_blocks.h"

namespace kiln::applications {

namespace L = kiln::layers;

namespace detail {

InitializerArg conv_kernel_initializer() { return initializers::VarianceScaling(2.0, "fan_out", "truncated_normal"); }

InitializerArg dense_kernel_initializer() { return initializers::VarianceScaling(1.0 / 3.0, "fan_out", "uniform"); }

Tensor efficientnet_bn(const Tensor& x, double momentum, const std::string& name) {
  return L::BatchNormalization({.axis = 3, .momentum = momentum, .name = name})(x);
}

Tensor squeeze_excite(const Tensor& x, int64_t filters_in, int64_t filters, double se_ratio,
                      const std::string& activation, const std::string& name) {
  const int64_t filters_se = std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(filters_in) * se_ratio));
  Tensor se = L::GlobalAveragePooling2D({.name = name + "se_squeeze"})(x);
  se = L::Reshape(Shape{1, 1, filters}, {.name = name + "se_reshape"})(se);
  se = L::Conv2D(filters_se, 1, {.padding = "same", .activation = activation,
                                 .kernel_initializer = conv_kernel_initializer(), .name = name + "se_reduce"})(se);
  se = L::Conv2D(filters, 1, {.padding = "same", .activation = "sigmoid",
                              .kernel_initializer = conv_kernel_initializer(), .name = name + "se_expand"})(se);
  return L::Multiply({.name = name + "se_excite"})({x, se});
}

Tensor drop_connect_add(const Tensor& x, const Tensor& inputs, double drop_rate, const std::string& name) {
  Tensor y = x;
  if (drop_rate != 0) y = L::Dropout(drop_rate, {.noise_shape = Shape{None, 1, 1, 1}, .name = name + "drop"})(y);
  return L::Add({.name = name + "add"})({y, inputs});
}

ModelPtr efficientnet_top(const Tensor& input, Tensor x, const EfficientNetTop& top, const std::string& activation,
                          const ApplicationOptions& o, const std::string& default_name) {
  x = L::Conv2D(top.filters, 1, {.padding = "same", .use_bias = false, .kernel_initializer = conv_kernel_initializer(),
                                 .name = "top_conv"})(x);
  x = efficientnet_bn(x, top.bn_momentum, "top_bn");
  x = L::Activation(activation, {.name = "top_activation"})(x);
  if (o.include_top) {
    x = L::GlobalAveragePooling2D({.name = "avg_pool"})(x);
    if (top.dropout_rate > 0) x = L::Dropout(top.dropout_rate, {.name = "top_dropout"})(x);
    const std::string act = o.classifier_activation.empty() ? "linear" : o.classifier_activation;
    x = L::Dense(o.classes, {.activation = act, .kernel_initializer = dense_kernel_initializer(),
                             .bias_initializer = top.dense_bias_initializer, .name = "predictions"})(x);
  } else if (o.pooling == "avg") {
    x = L::GlobalAveragePooling2D({.name = "avg_pool"})(x);
  } else if (o.pooling == "max") {
    x = L::GlobalMaxPooling2D({.name = "max_pool"})(x);
  }
  return make_model(input, x, o, default_name);
}

}  // namespace detail

namespace {

/// One row of DEFAULT_BLOCKS_ARGS; every row has id_skip and se_ratio 0.25.
struct BlockArgs {
  int kernel_size, repeats;
  int64_t filters_in, filters_out;
  int expand_ratio, strides;
};

constexpr BlockArgs kBlocks[] = {{3, 1, 32, 16, 1, 1},  {3, 2, 16, 24, 6, 2},  {5, 2, 24, 40, 6, 2},
                                 {3, 3, 40, 80, 6, 2},  {5, 3, 80, 112, 6, 1}, {5, 4, 112, 192, 6, 2},
                                 {3, 1, 192, 320, 6, 1}};
constexpr double kSeRatio = 0.25;
constexpr const char* kActivation = "swish";

/// The scaling of one variant (EfficientNet's first arguments).
struct Variant {
  double width_coefficient, depth_coefficient;
  int64_t default_size;
  double dropout_rate;
  const char* cls;
  const char* name;
};

Tensor bn(const Tensor& x, const std::string& name) { return detail::efficientnet_bn(x, 0.99, name); }

Tensor pointwise(const Tensor& x, int64_t filters, const std::string& name) {
  return L::Conv2D(filters, 1, {.padding = "same", .use_bias = false,
                                .kernel_initializer = detail::conv_kernel_initializer(), .name = name})(x);
}

/// block: expansion, depthwise convolution, squeeze-excite, projection, and
/// the residual when the block keeps its shape.
Tensor block(const Tensor& inputs, double drop_rate, const std::string& name, const BlockArgs& a) {
  const int64_t filters = a.filters_in * a.expand_ratio;
  Tensor x = inputs;
  if (a.expand_ratio != 1) {
    x = pointwise(x, filters, name + "expand_conv");
    x = L::Activation(kActivation, {.name = name + "expand_activation"})(bn(x, name + "expand_bn"));
  }
  if (a.strides == 2) {
    const auto [h, w] = detail::correct_pad(x, a.kernel_size);
    x = L::ZeroPadding2D(h, w, {.name = name + "dwconv_pad"})(x);
  }
  x = L::DepthwiseConv2D(a.kernel_size, {.strides = a.strides, .padding = a.strides == 2 ? "valid" : "same",
                                         .use_bias = false, .depthwise_initializer = detail::conv_kernel_initializer(),
                                         .name = name + "dwconv"})(x);
  x = L::Activation(kActivation, {.name = name + "activation"})(bn(x, name + "bn"));
  x = detail::squeeze_excite(x, a.filters_in, filters, kSeRatio, kActivation, name);
  x = bn(pointwise(x, a.filters_out, name + "project_conv"), name + "project_bn");
  if (a.strides == 1 && a.filters_in == a.filters_out) return detail::drop_connect_add(x, inputs, drop_rate, name);
  return x;
}

ModelPtr efficientnet(const Variant& v, const ApplicationOptions& o) {
  constexpr double drop_connect_rate = 0.2;
  constexpr int divisor = 8;
  // round_filters: scaled by the width, to a multiple of 8, never more than 10% down.
  auto round_filters = [&](int64_t f) {
    const double filters = static_cast<double>(f) * v.width_coefficient;
    int64_t n = std::max<int64_t>(divisor, static_cast<int64_t>(filters + divisor / 2.0) / divisor * divisor);
    if (static_cast<double>(n) < 0.9 * filters) n += divisor;
    return n;
  };
  auto round_repeats = [&](int r) { return static_cast<int>(std::ceil(v.depth_coefficient * r)); };
  const Shape shape = detail::obtain_input_shape(v.cls, o, v.default_size, 32);
  Tensor input = Input(shape);
  Tensor x = L::Rescaling(1.0 / 255.0)(input);
  // Without weights="imagenet" the normalisation's mean and variance are weights of its own, adapted or loaded.
  x = L::Normalization({.axis = 3})(x);
  const auto [h, w] = detail::correct_pad(x, 3);
  x = L::ZeroPadding2D(h, w, {.name = "stem_conv_pad"})(x);
  x = L::Conv2D(round_filters(32), 3,
                {.strides = 2, .padding = "valid", .use_bias = false,
                 .kernel_initializer = detail::conv_kernel_initializer(), .name = "stem_conv"})(x);
  x = L::Activation(kActivation, {.name = "stem_activation"})(bn(x, "stem_bn"));
  double blocks = 0;
  for (const BlockArgs& a : kBlocks) blocks += round_repeats(a.repeats);
  int b = 0;
  for (int i = 0; i < static_cast<int>(std::size(kBlocks)); ++i) {
    BlockArgs a = kBlocks[i];
    a.filters_in = round_filters(a.filters_in);
    a.filters_out = round_filters(a.filters_out);
    const int repeats = round_repeats(a.repeats);
    for (int j = 0; j < repeats; ++j) {
      // The first block of a stage changes the stride and the width; the others keep them.
      if (j > 0) {
        a.strides = 1;
        a.filters_in = a.filters_out;
      }
      const std::string name = "block" + std::to_string(i + 1) + static_cast<char>('a' + j) + "_";
      x = block(x, drop_connect_rate * b / blocks, name, a);
      ++b;
    }
  }
  return detail::efficientnet_top(input, x, {round_filters(1280), 0.99, v.dropout_rate, "zeros"}, kActivation, o,
                                  v.name);
}

}  // namespace

ModelPtr EfficientNetB0(const ApplicationOptions& o) {
  return efficientnet({1.0, 1.0, 224, 0.2, "EfficientNetB0", "efficientnetb0"}, o);
}
ModelPtr EfficientNetB1(const ApplicationOptions& o) {
  return efficientnet({1.0, 1.1, 240, 0.2, "EfficientNetB1", "efficientnetb1"}, o);
}
ModelPtr EfficientNetB2(const ApplicationOptions& o) {
  return efficientnet({1.1, 1.2, 260, 0.3, "EfficientNetB2", "efficientnetb2"}, o);
}
ModelPtr EfficientNetB3(const ApplicationOptions& o) {
  return efficientnet({1.2, 1.4, 300, 0.3, "EfficientNetB3", "efficientnetb3"}, o);
}
ModelPtr EfficientNetB4(const ApplicationOptions& o) {
  return efficientnet({1.4, 1.8, 380, 0.4, "EfficientNetB4", "efficientnetb4"}, o);
}
ModelPtr EfficientNetB5(const ApplicationOptions& o) {
  return efficientnet({1.6, 2.2, 456, 0.4, "EfficientNetB5", "efficientnetb5"}, o);
}
ModelPtr EfficientNetB6(const ApplicationOptions& o) {
  return efficientnet({1.8, 2.6, 528, 0.5, "EfficientNetB6", "efficientnetb6"}, o);
}
ModelPtr EfficientNetB7(const ApplicationOptions& o) {
  return efficientnet({2.0, 3.1, 600, 0.5, "EfficientNetB7", "efficientnetb7"}, o);
}

}  // namespace kiln::applications

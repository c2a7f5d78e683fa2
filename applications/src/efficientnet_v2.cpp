// EfficientNetV2 (B0 to B3, S, M, L), as keras.applications builds them
// (efficientnet_v2.py): an optional rescaling (and, for the B variants, ImageNet
// normalisation), then stages of fused (one full convolution in place of the
// expansion and depthwise pair) and plain MBConv blocks.
#include <algorithm>
#include <cmath>
#include <vector>

#include "efficientnet_blocks.h"

namespace kiln::applications {

namespace L = kiln::layers;

namespace {

/// One row of DEFAULT_BLOCKS_ARGS; every kernel is 3x3.
struct BlockArgs {
  int num_repeat;
  int64_t input_filters, output_filters;
  int expand_ratio;
  double se_ratio;
  int strides;
  bool fused;  ///< conv_type 1: FusedMBConvBlock; 0: MBConvBlock.
};

const std::vector<BlockArgs> kB = {{1, 32, 16, 1, 0, 1, true},       {2, 16, 32, 4, 0, 2, true},
                                   {2, 32, 48, 4, 0, 2, true},       {3, 48, 96, 4, 0.25, 2, false},
                                   {5, 96, 112, 6, 0.25, 1, false},  {8, 112, 192, 6, 0.25, 2, false}};
const std::vector<BlockArgs> kS = {{2, 24, 24, 1, 0, 1, true},        {4, 24, 48, 4, 0, 2, true},
                                   {4, 48, 64, 4, 0, 2, true},        {6, 64, 128, 4, 0.25, 2, false},
                                   {9, 128, 160, 6, 0.25, 1, false},  {15, 160, 256, 6, 0.25, 2, false}};
const std::vector<BlockArgs> kM = {{3, 24, 24, 1, 0, 1, true},         {5, 24, 48, 4, 0, 2, true},
                                   {5, 48, 80, 4, 0, 2, true},         {7, 80, 160, 4, 0.25, 2, false},
                                   {14, 160, 176, 6, 0.25, 1, false},  {18, 176, 304, 6, 0.25, 2, false},
                                   {5, 304, 512, 6, 0.25, 1, false}};
const std::vector<BlockArgs> kL = {{4, 32, 32, 1, 0, 1, true},         {7, 32, 64, 4, 0, 2, true},
                                   {7, 64, 96, 4, 0, 2, true},         {10, 96, 192, 4, 0.25, 2, false},
                                   {19, 192, 224, 6, 0.25, 1, false},  {25, 224, 384, 6, 0.25, 2, false},
                                   {7, 384, 640, 6, 0.25, 1, false}};

constexpr int kKernel = 3;
constexpr double kBnMomentum = 0.9;
constexpr const char* kActivation = "swish";

/// The scaling of one variant (EfficientNetV2's first arguments) and its table.
struct Variant {
  double width_coefficient, depth_coefficient;
  int64_t default_size;
  const std::vector<BlockArgs>* blocks;
  const char* cls;
  const char* name;
};

Tensor bn(const Tensor& x, const std::string& name) { return detail::efficientnet_bn(x, kBnMomentum, name); }

Tensor conv(const Tensor& x, int64_t filters, int kernel, int strides, const std::string& name) {
  return L::Conv2D(filters, kernel, {.strides = strides, .padding = "same", .use_bias = false,
                                     .kernel_initializer = detail::conv_kernel_initializer(), .name = name})(x);
}

Tensor swish(const Tensor& x, const std::string& name) { return L::Activation(kActivation, {.name = name})(x); }

/// MBConvBlock: expansion, depthwise convolution, squeeze-excite, projection.
Tensor mb_conv(const Tensor& inputs, const BlockArgs& a, double survival_probability, const std::string& name) {
  const int64_t filters = a.input_filters * a.expand_ratio;
  Tensor x = inputs;
  if (a.expand_ratio != 1) x = swish(bn(conv(x, filters, 1, 1, name + "expand_conv"), name + "expand_bn"),
                                     name + "expand_activation");
  x = L::DepthwiseConv2D(kKernel, {.strides = a.strides, .padding = "same", .use_bias = false,
                                   .depthwise_initializer = detail::conv_kernel_initializer(),
                                   .name = name + "dwconv2"})(x);
  x = swish(bn(x, name + "bn"), name + "activation");
  if (a.se_ratio > 0 && a.se_ratio <= 1)
    x = detail::squeeze_excite(x, a.input_filters, filters, a.se_ratio, kActivation, name);
  x = bn(conv(x, a.output_filters, 1, 1, name + "project_conv"), name + "project_bn");
  if (a.strides == 1 && a.input_filters == a.output_filters)
    return detail::drop_connect_add(x, inputs, survival_probability, name);
  return x;
}

/// FusedMBConvBlock: one full convolution does the expansion's and the depthwise's work.
Tensor fused_mb_conv(const Tensor& inputs, const BlockArgs& a, double survival_probability, const std::string& name) {
  const int64_t filters = a.input_filters * a.expand_ratio;
  const bool expands = a.expand_ratio != 1;
  Tensor x = inputs;
  if (expands) x = swish(bn(conv(x, filters, kKernel, a.strides, name + "expand_conv"), name + "expand_bn"),
                         name + "expand_activation");
  if (a.se_ratio > 0 && a.se_ratio <= 1)
    x = detail::squeeze_excite(x, a.input_filters, filters, a.se_ratio, kActivation, name);
  x = conv(x, a.output_filters, expands ? 1 : kKernel, expands ? 1 : a.strides, name + "project_conv");
  x = bn(x, name + "project_bn");
  if (!expands) x = swish(x, name + "project_activation");
  if (a.strides == 1 && a.input_filters == a.output_filters)
    return detail::drop_connect_add(x, inputs, survival_probability, name);
  return x;
}

/// The B variants take the original EfficientNet's ImageNet normalisation (on
/// three channels); the others, and other channel counts, map [0, 255] to [-1, 1).
Tensor preprocessing(const Tensor& input, bool b_variant) {
  if (b_variant && input.shape()[-1] == 3) {
    Tensor x = L::Rescaling(1.0 / 255)(input);
    return L::Normalization({.axis = 3,
                             .mean = std::vector<double>{0.485, 0.456, 0.406},
                             .variance = std::vector<double>{0.229 * 0.229, 0.224 * 0.224, 0.225 * 0.225}})(x);
  }
  return L::Rescaling(1.0 / 128.0, {.offset = -1})(input);
}

ModelPtr efficientnet_v2(const Variant& v, const ApplicationOptions& o) {
  constexpr double drop_connect_rate = 0.2;
  constexpr int64_t divisor = 8, min_depth = 8;
  // round_filters: scaled by the width, to the nearest multiple of 8, at least 8.
  auto round_filters = [&](int64_t f) {
    const double filters = static_cast<double>(f) * v.width_coefficient;
    return std::max(min_depth, static_cast<int64_t>(filters + divisor / 2.0) / divisor * divisor);
  };
  const std::vector<BlockArgs>& table = *v.blocks;
  const Shape shape = detail::obtain_input_shape(v.cls, o, v.default_size, 32);
  Tensor input = Input(shape);
  Tensor x = input;
  // Keras tells the B variants apart by their name's last part ("efficientnetv2-b0").
  const std::string default_name = v.name;
  if (o.include_preprocessing) x = preprocessing(x, default_name.substr(default_name.rfind('-') + 1)[0] == 'b');
  x = conv(x, round_filters(table[0].input_filters), kKernel, 2, "stem_conv");
  x = swish(bn(x, "stem_bn"), "stem_activation");
  // The drop rates grow over the table's own block count, before the depth scaling.
  double blocks = 0;
  for (const BlockArgs& a : table) blocks += a.num_repeat;
  int b = 0;
  for (std::size_t i = 0; i < table.size(); ++i) {
    BlockArgs a = table[i];
    a.input_filters = round_filters(a.input_filters);
    a.output_filters = round_filters(a.output_filters);
    const int repeats = static_cast<int>(std::ceil(v.depth_coefficient * a.num_repeat));
    for (int j = 0; j < repeats; ++j) {
      if (j > 0) {
        a.strides = 1;
        a.input_filters = a.output_filters;
      }
      const std::string name = "block" + std::to_string(i + 1) + static_cast<char>('a' + j) + "_";
      const double survival_probability = drop_connect_rate * b / blocks;
      x = a.fused ? fused_mb_conv(x, a, survival_probability, name) : mb_conv(x, a, survival_probability, name);
      ++b;
    }
  }
  return detail::efficientnet_top(input, x, {round_filters(1280), kBnMomentum, 0.2, initializers::Constant(0.0)},
                                  kActivation, o, default_name);
}

}  // namespace

ModelPtr EfficientNetV2B0(const ApplicationOptions& o) {
  return efficientnet_v2({1.0, 1.0, 224, &kB, "EfficientNetV2B0", "efficientnetv2-b0"}, o);
}
ModelPtr EfficientNetV2B1(const ApplicationOptions& o) {
  return efficientnet_v2({1.0, 1.1, 240, &kB, "EfficientNetV2B1", "efficientnetv2-b1"}, o);
}
ModelPtr EfficientNetV2B2(const ApplicationOptions& o) {
  return efficientnet_v2({1.1, 1.2, 260, &kB, "EfficientNetV2B2", "efficientnetv2-b2"}, o);
}
ModelPtr EfficientNetV2B3(const ApplicationOptions& o) {
  return efficientnet_v2({1.2, 1.4, 300, &kB, "EfficientNetV2B3", "efficientnetv2-b3"}, o);
}
ModelPtr EfficientNetV2S(const ApplicationOptions& o) {
  return efficientnet_v2({1.0, 1.0, 384, &kS, "EfficientNetV2S", "efficientnetv2-s"}, o);
}
ModelPtr EfficientNetV2M(const ApplicationOptions& o) {
  return efficientnet_v2({1.0, 1.0, 480, &kM, "EfficientNetV2M", "efficientnetv2-m"}, o);
}
ModelPtr EfficientNetV2L(const ApplicationOptions& o) {
  return efficientnet_v2({1.0, 1.0, 480, &kL, "EfficientNetV2L", "efficientnetv2-l"}, o);
}

}  // namespace kiln::applications

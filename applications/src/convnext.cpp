// ConvNeXt, as keras.applications builds it (convnext.py): an optional
// ImageNet normalisation, a patchify stem and three downsampling blocks (each
// a Sequential of its own), and stages of blocks: 7x7 depthwise convolution,
// LayerNormalization, two pointwise Dense layers around GELU, LayerScale, and
// the residual added with keras.ops' add.
#include <vector>

#include "app_builder.h"
#include "kiln/nn/operation_layer.h"
#include "kiln/training/sequential.h"

namespace kiln::applications {

namespace L = kiln::layers;

namespace {

struct ConvNeXtConfig {
  std::vector<int> depths;
  std::vector<int64_t> dims;
};

L::LayerNormalization layer_norm(const std::string& name) {
  return L::LayerNormalization({.epsilon = 1e-6, .name = name});
}

Tensor block(const Tensor& inputs, int64_t dim, const std::string& name) {
  Tensor x = L::Conv2D(dim, 7, {.padding = "same", .groups = static_cast<int>(dim),
                                .name = name + "_depthwise_conv"})(inputs);
  x = layer_norm(name + "_layernorm")(x);
  x = L::Dense(4 * dim, {.name = name + "_pointwise_conv_1"})(x);
  x = L::Activation("gelu", {.name = name + "_gelu"})(x);
  x = L::Dense(dim, {.name = name + "_pointwise_conv_2"})(x);
  x = L::LayerScale(1e-6, dim, {.name = name + "_layer_scale"})(x);
  // drop_path_rate is 0 in every keras.applications variant, so the path is an identity.
  x = L::Activation("linear", {.name = name + "_identity"})(x);
  return keras_op("Add", {inputs, x});
}

std::shared_ptr<Sequential> stem(int64_t dim, const std::string& name) {
  return std::make_shared<Sequential>(
      std::vector<LayerPtr>{L::Conv2D(dim, 4, {.strides = 4, .name = name + "_stem_conv"}),
                            layer_norm(name + "_stem_layernorm")},
      LayerOptions{.name = name + "_stem"});
}

std::shared_ptr<Sequential> downsampling(int64_t dim, int i, const std::string& name) {
  const std::string k = std::to_string(i);
  return std::make_shared<Sequential>(
      std::vector<LayerPtr>{layer_norm(name + "_downsampling_layernorm_" + k),
                            L::Conv2D(dim, 2, {.strides = 2, .name = name + "_downsampling_conv_" + k})},
      LayerOptions{.name = name + "_downsampling_block_" + k});
}

ModelPtr convnext(const ConvNeXtConfig& c, const ApplicationOptions& o, const std::string& cls,
                  const std::string& default_name) {
  const Shape shape = detail::obtain_input_shape(cls, o, 224, 32);
  const std::string name = o.name.empty() ? default_name : o.name;
  Tensor input = Input(shape);
  Tensor x = input;
  if (o.include_preprocessing && shape[2] == 3)
    x = L::Normalization({.mean = std::vector<double>{0.485 * 255, 0.456 * 255, 0.406 * 255},
                          .variance = std::vector<double>{(0.229 * 255) * (0.229 * 255), (0.224 * 255) * (0.224 * 255),
                                                          (0.225 * 255) * (0.225 * 255)},
                          .name = name + "_prestem_normalization"})(x);
  // Keras makes the stem and all three downsampling blocks before the first stage.
  std::vector<std::shared_ptr<Sequential>> down{stem(c.dims[0], name)};
  for (int i = 0; i < 3; ++i) down.push_back(downsampling(c.dims[i + 1], i, name));
  for (int i = 0; i < 4; ++i) {
    x = (*down[i])(x);
    for (int j = 0; j < c.depths[i]; ++j)
      x = block(x, c.dims[i], name + "_stage_" + std::to_string(i) + "_block_" + std::to_string(j));
  }
  if (o.include_top) {
    x = L::GlobalAveragePooling2D({.name = name + "_head_gap"})(x);
    x = layer_norm(name + "_head_layernorm")(x);
    const std::string act = o.classifier_activation.empty() ? "linear" : o.classifier_activation;
    x = L::Dense(o.classes, {.activation = act, .name = name + "_head_dense"})(x);
  } else {
    if (o.pooling == "avg") x = L::GlobalAveragePooling2D()(x);
    else if (o.pooling == "max") x = L::GlobalMaxPooling2D()(x);
    x = layer_norm("")(x);
  }
  ApplicationOptions named = o;
  named.name = name;
  return detail::make_model(input, x, named, default_name);
}

}  // namespace

ModelPtr ConvNeXtTiny(const ApplicationOptions& o) {
  return convnext({{3, 3, 9, 3}, {96, 192, 384, 768}}, o, "ConvNeXtTiny", "convnext_tiny");
}
ModelPtr ConvNeXtSmall(const ApplicationOptions& o) {
  return convnext({{3, 3, 27, 3}, {96, 192, 384, 768}}, o, "ConvNeXtSmall", "convnext_small");
}
ModelPtr ConvNeXtBase(const ApplicationOptions& o) {
  return convnext({{3, 3, 27, 3}, {128, 256, 512, 1024}}, o, "ConvNeXtBase", "convnext_base");
}
ModelPtr ConvNeXtLarge(const ApplicationOptions& o) {
  return convnext({{3, 3, 27, 3}, {192, 384, 768, 1536}}, o, "ConvNeXtLarge", "convnext_large");
}
ModelPtr ConvNeXtXLarge(const ApplicationOptions& o) {
  return convnext({{3, 3, 27, 3}, {256, 512, 1024, 2048}}, o, "ConvNeXtXLarge", "convnext_xlarge");
}

}  // namespace kiln::applications

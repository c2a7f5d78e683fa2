// The built-in layer registrations and thin wrappers over kiln/nn/layer_registry.h.
#include "kiln/layers/register.h"

#include <mutex>
#include <nlohmann/json.hpp>

#include "kiln/core/error.h"
#include "kiln/layers/activation_layers.h"
#include "kiln/layers/conv1d.h"
#include "kiln/layers/conv2d.h"
#include "kiln/layers/dense.h"
#include "kiln/layers/dropout.h"
#include "kiln/layers/embedding.h"
#include "kiln/layers/global_pooling.h"
#include "kiln/layers/input.h"
#include "kiln/layers/lambda.h"
#include "kiln/layers/merge.h"
#include "kiln/layers/normalization.h"
#include "kiln/layers/pooling.h"
#include "kiln/layers/reshaping.h"
#include "kiln/nn/layer_registry.h"

namespace kiln::layers {

namespace {

// The table itself is the framework's (kiln/nn/layer_registry.h), so that
// Model::from_config and load_model find every layer registered here.
template <class Impl>
void add(std::initializer_list<const char*> names) {
  for (const char* n : names)
    // A class registered earlier (a user override) keeps its factory.
    if (!is_layer_class_registered(n))
      register_layer_class(n, [](const Config& c) -> LayerPtr { return Impl::from_config(c); });
}

void add_builtins() {
  add<DenseImpl>({"Dense"});
  add<Conv2DImpl>({"Conv2D", "Convolution2D"});
  add<Conv1DImpl>({"Conv1D", "Convolution1D"});
  add<MaxPooling2DImpl>({"MaxPooling2D", "MaxPool2D"});
  add<AveragePooling2DImpl>({"AveragePooling2D", "AvgPool2D"});
  add<MaxPooling1DImpl>({"MaxPooling1D", "MaxPool1D"});
  add<AveragePooling1DImpl>({"AveragePooling1D", "AvgPool1D"});
  add<GlobalAveragePooling2DImpl>({"GlobalAveragePooling2D", "GlobalAvgPool2D"});
  add<GlobalMaxPooling2DImpl>({"GlobalMaxPooling2D", "GlobalMaxPool2D"});
  add<GlobalAveragePooling1DImpl>({"GlobalAveragePooling1D", "GlobalAvgPool1D"});
  add<GlobalMaxPooling1DImpl>({"GlobalMaxPooling1D", "GlobalMaxPool1D"});
  add<FlattenImpl>({"Flatten"});
  add<ReshapeImpl>({"Reshape"});
  add<PermuteImpl>({"Permute"});
  add<RepeatVectorImpl>({"RepeatVector"});
  add<ZeroPadding2DImpl>({"ZeroPadding2D"});
  add<DropoutImpl>({"Dropout"});
  add<BatchNormalizationImpl>({"BatchNormalization"});
  add<LayerNormalizationImpl>({"LayerNormalization"});
  add<ActivationImpl>({"Activation"});
  add<ReLUImpl>({"ReLU"});
  add<SoftmaxImpl>({"Softmax"});
  add<LeakyReLUImpl>({"LeakyReLU"});
  add<ELUImpl>({"ELU"});
  add<PReLUImpl>({"PReLU"});
  add<AddImpl>({"Add"});
  add<SubtractImpl>({"Subtract"});
  add<MultiplyImpl>({"Multiply"});
  add<AverageImpl>({"Average"});
  add<MaximumImpl>({"Maximum"});
  add<MinimumImpl>({"Minimum"});
  add<ConcatenateImpl>({"Concatenate"});
  add<DotImpl>({"Dot"});
  add<EmbeddingImpl>({"Embedding"});
  add<LambdaImpl>({"Lambda"});
  if (!is_layer_class_registered("InputLayer"))
    register_layer_class("InputLayer", [](const Config& c) -> LayerPtr { return input_layer_from_config(c); });
}

void ensure_builtins() {
  static std::once_flag once;
  std::call_once(once, add_builtins);
}

}  // namespace

void register_builtins() { ensure_builtins(); }

namespace {
// libkiln is a shared library, so this runs when it loads: load_model and
// layer_from_config find every built-in layer even in a program that never
// includes kiln/layers.h. (The umbrella header registers too, for static builds.)
[[maybe_unused]] const bool builtins_registered_at_load = (ensure_builtins(), true);
}  // namespace

void register_layer(const std::string& class_name, LayerFactory factory) {
  if (class_name.empty()) throw ValueError("register_layer: the class name is empty");
  if (!factory) throw ValueError("register_layer: the factory for '" + class_name + "' is empty");
  ensure_builtins();
  register_layer_class(class_name, std::move(factory));
}

LayerPtr from_config(const Config& c) {
  ensure_builtins();
  if (!c.is_object() || !c.contains("class_name") || !c["class_name"].is_string())
    throw ValueError("layers::from_config: expected {\"class_name\": ..., \"config\": {...}}, got " + c.dump());
  LayerPtr layer = layer_from_config(c);  // unknown classes: NotFoundError "Unknown layer class: 'Foo'..."
  if (!layer) throw ValueError("The factory registered for layer class '" + c["class_name"].get<std::string>() + "' returned null");
  return layer;
}

LayerPtr from_config(const std::string& class_name, const Config& config) {
  return from_config(Config{{"class_name", class_name}, {"config", config.is_null() ? Config::object() : config}});
}

Config serialize(const Layer& layer) {
  return {{"module", "keras.layers"},
          {"class_name", layer.class_name()},
          {"config", layer.get_config()},
          {"registered_name", nullptr}};
}

std::vector<std::string> registered_names() {
  ensure_builtins();
  return registered_layer_classes();
}

}  // namespace kiln::layers

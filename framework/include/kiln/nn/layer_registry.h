#pragma once
// Layer classes by Keras class name, so configs and files can name them.
// Built-in layers register themselves (layers/); custom layers and
// subclassed models register with register_layer_class (Keras's
// register_keras_serializable / custom_objects).
//   kiln::register_layer_class("FlexibleDense", [](const kiln::Config& c) { ... });
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kiln/core/config.h"
#include "kiln/nn/layer.h"

namespace kiln {

using LayerFactory = std::function<LayerPtr(const Config& config)>;

void register_layer_class(const std::string& class_name, LayerFactory factory);
bool is_layer_class_registered(const std::string& class_name);
std::vector<std::string> registered_layer_classes();
/// Builds a layer from {"class_name": ..., "config": {...}} (Keras 2 or 3 form).
/// Sequential, Functional/Model configs build models. Unknown classes throw
/// NotFoundError naming the class.
LayerPtr layer_from_config(const Config& entry);

}  // namespace kiln

#pragma once
// Layer registration: Keras class name -> factory building the layer from its config.
// The table is the framework's (kiln/nn/layer_registry.h); these are its layers-module
// entry points, and register_builtins() fills it with every built-in layer.
//   kiln::LayerPtr l = kiln::layers::from_config(
//       {{"class_name", "Dense"}, {"config", {{"units", 10}, {"activation", "relu"}}}});
//   kiln::layers::register_layer("MyLayer", [](const kiln::Config& c) { return make_my_layer(c); });
// Both Keras 3 objects ({"module", "class_name", "config", "registered_name"}) and
// tf.keras 2 ones ({"class_name", "config"}) are accepted.
#include <functional>
#include <string>
#include <vector>

#include "kiln/core/config.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_registry.h"

namespace kiln::layers {

using LayerFactory = ::kiln::LayerFactory;

/// Adds (or replaces) a factory under a Keras class name.
void register_layer(const std::string& class_name, LayerFactory factory);
/// Builds a layer from {"class_name", "config"} (Sequential/Functional configs build
/// models). Unknown classes throw NotFoundError: "Unknown layer class: 'Foo'. Did you mean ...?".
LayerPtr from_config(const Config& serialized);
/// Builds a layer from a class name and its config object.
LayerPtr from_config(const std::string& class_name, const Config& config);
/// Keras 3 form: {"module": "keras.layers", "class_name", "config", "registered_name": null}.
Config serialize(const Layer& layer);
/// Every registered class name, sorted.
std::vector<std::string> registered_names();
/// Registers every built-in layer (idempotent). from_config() calls it itself;
/// including kiln/layers.h also runs it at start-up.
void register_builtins();

}  // namespace kiln::layers

// The layers module's entry points over kiln/nn/layer_registry.h. Each built-in
// layer registers with one KILN_REGISTER_LAYER line in its own .cpp; the build
// collects those lines into kiln_register_builtins_layer().
#include "kiln/layers/register.h"

#include <nlohmann/json.hpp>

#include "kiln/core/error.h"
#include "kiln/nn/layer_registry.h"

extern "C" void kiln_register_builtins_layer();

namespace kiln::layers {

namespace {
// Runs when libkiln loads (and in static builds whenever this object is linked
// in): the framework's first layer lookup then registers every built-in.
const bool hook_installed = [] {
  ::kiln::detail::layer_builtins_hook = &kiln_register_builtins_layer;
  return true;
}();
}  // namespace

void register_builtins() {
  ::kiln::detail::layer_builtins_hook = &kiln_register_builtins_layer;
  (void)is_layer_class_registered("Dense");  // the first lookup runs the hook, once
}

void register_layer(const std::string& class_name, LayerFactory factory) {
  if (class_name.empty()) throw ValueError("register_layer: the class name is empty");
  if (!factory) throw ValueError("register_layer: the factory for '" + class_name + "' is empty");
  register_builtins();  // a user class registered first must not be overwritten by a built-in
  register_layer_class(class_name, std::move(factory));
}

LayerPtr from_config(const Config& c) {
  register_builtins();
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
  register_builtins();
  return registered_layer_classes();
}

}  // namespace kiln::layers

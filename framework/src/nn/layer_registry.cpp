#include "kiln/nn/layer_registry.h"

#include <nlohmann/json.hpp>

#include "core/json_errors.h"
#include "kiln/core/error.h"
#include "kiln/core/registry.h"

namespace kiln {

namespace detail {
void (*layer_builtins_hook)() = nullptr;
}

namespace {
struct LayerClassEntry {
  LayerFactory make;
  LayerClassHooks hooks;
};

Registry<LayerClassEntry>& table() {
  static Registry<LayerClassEntry> r(
      "layer class", &detail::layer_builtins_hook,
      "A custom layer or model class must be registered before loading: call "
      "kiln::register_layer_class(\"ClassName\", factory), or pass it to load_model as "
      "{.custom_objects = {{\"ClassName\", factory}}}.");
  return r;
}
}  // namespace

void register_layer_class(const std::string& class_name, LayerFactory factory, LayerClassHooks hooks) {
  table().add(class_name, {std::move(factory), std::move(hooks)});
}

bool is_layer_class_registered(const std::string& class_name) { return table().contains(class_name); }

std::vector<std::string> registered_layer_classes() { return table().names(); }

const LayerClassHooks* layer_class_hooks(const std::string& class_name) {
  const LayerClassEntry* e = table().find(class_name);
  return e ? &e->hooks : nullptr;
}

LayerPtr layer_from_config(const Config& entry) {
  if (!entry.is_object() || !entry.contains("class_name"))
    throw ValueError("layer_from_config: expected an object with \"class_name\" and \"config\", got: " +
                     entry.dump().substr(0, 200));
  std::string cls = detail::json_field<std::string>(entry, "class_name", "layer_from_config");
  // Keras 3 may name custom classes "package>Name".
  if (entry.contains("registered_name") && entry["registered_name"].is_string()) {
    std::string reg = entry["registered_name"].get<std::string>();
    if (is_layer_class_registered(reg)) cls = reg;
  }
  Config config = entry.contains("config") ? entry.at("config") : Config::object();
  const LayerClassEntry* e = &table().get(cls);  // unknown: NotFoundError listing close matches
  if (e->hooks.upgrade_entry && config.is_object()) {
    // An older Keras's keys (and class name) in today's form.
    Config up = e->hooks.upgrade_entry(Config{{"class_name", cls}, {"config", config}});
    config = up["config"];
    if (up["class_name"] != cls) e = &table().get(up["class_name"].get<std::string>());
  }
  return e->make(config);
}

}  // namespace kiln

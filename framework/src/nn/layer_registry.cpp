#include "kiln/nn/layer_registry.h"

#include <nlohmann/json.hpp>

#include "kiln/core/error.h"
#include "kiln/core/registry.h"

namespace kiln {
namespace {
Registry<LayerFactory>& table() {
  static Registry<LayerFactory> r("layer class");
  return r;
}
}  // namespace

void register_layer_class(const std::string& class_name, LayerFactory factory) {
  table().add(class_name, std::move(factory));
}

bool is_layer_class_registered(const std::string& class_name) { return table().contains(class_name); }

std::vector<std::string> registered_layer_classes() { return table().names(); }

LayerPtr layer_from_config(const Config& entry) {
  if (!entry.is_object() || !entry.contains("class_name"))
    throw ValueError("layer_from_config: expected an object with \"class_name\" and \"config\", got: " +
                     entry.dump().substr(0, 200));
  std::string cls = entry.at("class_name").get<std::string>();
  // Keras 3 may name custom classes "package>Name".
  if (entry.contains("registered_name") && entry["registered_name"].is_string()) {
    std::string reg = entry["registered_name"].get<std::string>();
    if (is_layer_class_registered(reg)) cls = reg;
  }
  Config config = entry.contains("config") ? entry.at("config") : Config::object();
  return table().get(cls)(config);  // unknown: NotFoundError listing close matches
}

}  // namespace kiln

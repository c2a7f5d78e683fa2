#include "kiln/nn/layer_registry.h"

#include <mutex>
#include <nlohmann/json.hpp>

#include "kiln/core/error.h"
#include "kiln/core/registry.h"

namespace kiln {
namespace {
std::mutex g_mu;
std::map<std::string, LayerFactory>& table() {
  static std::map<std::string, LayerFactory> t;
  return t;
}
}  // namespace

void register_layer_class(const std::string& class_name, LayerFactory factory) {
  std::lock_guard<std::mutex> l(g_mu);
  table()[class_name] = std::move(factory);
}

bool is_layer_class_registered(const std::string& class_name) {
  std::lock_guard<std::mutex> l(g_mu);
  return table().count(class_name) > 0;
}

std::vector<std::string> registered_layer_classes() {
  std::lock_guard<std::mutex> l(g_mu);
  std::vector<std::string> n;
  for (const auto& [k, v] : table()) n.push_back(k);
  return n;
}

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
  LayerFactory f;
  {
    std::lock_guard<std::mutex> l(g_mu);
    auto it = table().find(cls);
    if (it != table().end()) f = it->second;
  }
  if (!f) {
    std::vector<std::string> known = registered_layer_classes();
    throw_unknown("layer class", cls, known);
  }
  return f(config);
}

}  // namespace kiln

#pragma once
// Layers inside a layer's config (RNN's cell, Bidirectional's layer,
// TimeDistributed's layer), written as Keras 3 serializes them and read back
// through the layer registry.
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "kiln/core/config.h"
#include "kiln/core/error.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_registry.h"

namespace kiln::layers::detail {

/// {"module", "class_name", "config" (dtype as a DTypePolicy), "registered_name"}.
Config serialize_nested(const Layer& l);

/// Keras's variable paths name the wrapper too ("lstm/lstm_cell/kernel"):
/// prefixes every weight of `child` with "<owner>/" once the child is built.
void prefix_weight_paths(const Layer& child, const std::string& owner);

/// The layer under config[key], which must be a T (named in the error otherwise).
template <class T>
std::shared_ptr<T> nested_from_config(const Config& config, const char* key, const std::string& owner) {
  if (!config.contains(key) || !config[key].is_object())
    throw ValueError(owner + ".from_config: the config has no layer object under '" + std::string(key) + "'");
  LayerPtr l = layer_from_config(config[key]);
  auto t = std::dynamic_pointer_cast<T>(l);
  if (!t)
    throw ValueError(owner + ".from_config: '" + std::string(key) + "' holds a " + l->class_name() +
                     ", which cannot be used here");
  return t;
}

}  // namespace kiln::layers::detail

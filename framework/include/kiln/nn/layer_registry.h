#pragma once
// Layer classes by Keras class name, so configs and files can name them.
// Built-in layers register themselves (layers/); custom layers and
// subclassed models register with register_layer_class (Keras's
// register_keras_serializable / custom_objects).
//   kiln::register_layer_class("FlexibleDense", [](const kiln::Config& c) { ... });
//
// A class may also carry hooks for files written by other Keras versions, so
// the loaders need not know any layer class: Keras 1 key names, Keras 1 and
// Theano weight layouts, and what Keras 3 writes differently from tf.keras 2.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kiln/core/config.h"
#include "kiln/nn/layer.h"

namespace kiln {

/// Builds a layer from its config (the "config" entry of a layer's JSON).
using LayerFactory = std::function<LayerPtr(const Config& config)>;

/// Where a legacy .h5 file's weights come from.
struct LegacyWeightsSource {
  std::string keras_version;  ///< "1" or "2" (the major version the file names)
  bool theano = false;        ///< Theano backend: convolution kernels are flipped
};

/// Per-class hooks for files written by other Keras versions (see register_layer_class()).
struct LayerClassHooks {
  /// Rewrites a layer entry {"class_name", "config"} written by an older Keras
  /// (Keras 1's nb_filter, output_dim, border_mode...) into the current form;
  /// entries that are already current come back unchanged. layer_from_config
  /// applies it, and so do the file loaders before they read a model config.
  std::function<Config(const Config& entry)> upgrade_entry;
  /// Brings weights read from a legacy .h5 into the layer's current layout.
  std::function<std::vector<Tensor>(const Layer& layer, std::vector<Tensor> weights, const LegacyWeightsSource& from)>
      upgrade_legacy_weights;
  /// Adjusts get_config()'s tf.keras 2 form to what Keras 3 writes in a .keras file.
  std::function<void(Config& config)> to_keras3_config;
  /// Keras 3 records a build_config for this class even when it has no weights
  /// (layers whose Python class defines build()).
  bool records_build_config = false;
  /// The Python module of a class Keras defines outside keras.layers
  /// (keras.src.applications.convnext's LayerScale). Configs name it, with the
  /// class name as registered_name, so that Keras finds the class; empty: keras.layers.
  std::string keras_module;
};

/// Registers a layer class under its Keras class name, so layer_from_config()
/// and the file loaders can build it (Keras's register_keras_serializable).
void register_layer_class(const std::string& class_name, LayerFactory factory, LayerClassHooks hooks = {});
/// Whether a class of this name is registered.
bool is_layer_class_registered(const std::string& class_name);
/// Every registered class name.
std::vector<std::string> registered_layer_classes();
/// The hooks of a registered class; nullptr when the class is unknown.
const LayerClassHooks* layer_class_hooks(const std::string& class_name);
/// Builds a layer from {"class_name": ..., "config": {...}} (Keras 2 or 3 form).
/// Sequential, Functional/Model configs build models. Unknown classes throw
/// NotFoundError naming the class.
LayerPtr layer_from_config(const Config& entry);

namespace detail {
/// Set by the layers module to its registration function; the first lookup
/// runs it (see kiln/core/registry.h).
extern void (*layer_builtins_hook)();
}  // namespace detail

}  // namespace kiln

#pragma once
// Private (framework/src/io): the pieces behind Model::save / load_model /
// save_weights / load_weights, Checkpoint and the callbacks. Only .cpp files
// in framework/src/io include this.
//
//   keras_config.cpp  model/compile configs in Keras 3 (.keras) and tf.keras 2
//                     (.h5) forms
//   model_config_reader.cpp   Keras 1 -> 2 config upgrade; model from a config
//   compile_config_reader.cpp compile restore
//   weights_store.cpp Keras 3 object-graph layout (layers/<snake>/vars/<i>)
//   legacy_h5.cpp     legacy HDF5 (model_weights / layer_names / weight_names)
//   keras_archive.cpp the .keras zip (config.json, metadata.json, model.weights.h5)
//   saving.cpp        the public entry points, routing by file name
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "io/hdf5_file.h"
#include "kiln/core/config.h"
#include "kiln/nn/layer_registry.h"
#include "kiln/training/model.h"

namespace kiln::io {

/// Keras version written into files: the Keras 3 version whose layouts and
/// configs Kiln reproduces (.keras / .weights.h5 / metadata.json).
inline constexpr const char* kKeras3Version = "3.10.0";
/// Keras version written into legacy .h5 files (tf.keras 2 style config).
inline constexpr const char* kKeras2Version = "2.15.0";

// ---- keras_config.cpp ----
/// serialize_keras_object(model) as Keras 3 writes config.json: module,
/// class_name, config (layers with DTypePolicy dtypes and build_config),
/// registered_name, build_config and (if compiled) compile_config.
Config keras3_model_object(const Model& m);
/// tf.keras 2 style {"class_name": "Sequential"|"Functional", "config": {...}}
/// (batch_input_shape, dtype strings, list inbound_nodes), which tf.keras 2 and
/// Keras 3 both load.
Config keras2_model_config(const Model& m);
/// training_config for a legacy .h5: loss, metrics, weighted_metrics,
/// loss_weights, optimizer_config (tf.keras 2 compatible keys).
Config keras2_training_config(const Model& m);

// ---- model_config_reader.cpp ----
/// Normalises a model config read from a file before Model::from_config: Keras 1
/// layer classes and keys (Convolution2D/nb_filter/border_mode/dim_ordering,
/// Dense/output_dim, Dropout/p, ...) become Keras 2 ones; one-element "axis"
/// lists of BatchNormalization become ints (as Keras 3's legacy loader does);
/// to_json() extras (keras_version, backend) are dropped.
Config upgrade_model_config(const Config& c);
/// Builds the model from a (normalised) config; unknown layer classes raise
/// NotFoundError naming `source` and the class; other errors name `source`.
/// `weights_follow`: the caller loads every weight from the file next, so the
/// initializers need not run (FileLoadScope::weights_follow).
std::shared_ptr<Model> model_from_file_config(const Config& c, const std::string& source, bool weights_follow = false);
/// True if a (Keras 1) config has any layer with dim_ordering "th".
bool uses_channels_first(const Config& c);

// ---- compile_config_reader.cpp ----
/// Compiles `m` from a Keras 3 compile_config or a tf.keras/Keras 3
/// training_config (loss, metrics, loss_weights, optimizer / optimizer_config).
void compile_from_config(Model& m, const Config& cfg, const std::string& source);

// ---- weights_store.cpp ----
/// Writes the Keras 3 object-graph layout under `root` (the file root of a
/// .weights.h5 or model.weights.h5): vars/ for the model, layers/<snake>[_k]/vars/<i>,
/// optimizer/vars/<i> when `include_optimizer` and the model has a built optimizer.
void save_state(const Model& m, H5Group root, bool include_optimizer);
/// Reads that layout back. Layer stores must match in count and shapes (errors
/// name the file, the store path and the layer); with skip_mismatch such layers
/// are skipped with a warning. Optimizer state is loaded when `load_optimizer`
/// and the file has it: a mismatch only warns (as Keras does).
void load_state(Model& m, const H5Group& root, bool load_optimizer, bool skip_mismatch);

/// A layer's own variables in Keras's store order (trainable, then non-trainable).
std::vector<Variable> keras_own_variables(const Layer& l);
/// The layer itself and every nested layer with its store path ("" for the
/// root, "layers/dense", "layers/sequential/layers/dense_1", ...): the walk
/// save_state uses. Checkpoints use it to restore layer by layer.
struct LayerStore {
  const Layer* layer;
  std::string path;
};
std::vector<LayerStore> layer_stores(const Layer& root);
/// save_state's walk for any layer (no optimizer), under `root`.
void save_layer_state(const Layer& l, H5Group root);

// ---- legacy_h5.cpp ----
/// Writes layer_names/backend/keras_version and one group per layer (legacy layout).
void save_legacy_weights(const Model& m, H5Group g);
struct LegacyLoadOptions {
  bool by_name = false;
  bool skip_mismatch = false;
  /// From the model config (Keras 1 "th" dim_ordering): convert kernels as Theano ones.
  bool assume_theano = false;
};
/// Loads weights from a legacy group (root of a weights file or /model_weights).
void load_legacy_weights(Model& m, const H5Group& g, const LegacyLoadOptions& o);
void save_legacy_model(const Model& m, const std::string& path, bool include_optimizer);
/// `trusted` false: libhdf5 parses the file in the sandbox (hdf5_sandbox.h).
std::shared_ptr<Model> load_legacy_model(const std::string& path, bool compile, bool trusted);
/// The same from an open file (H5File::from_image for bytes in memory).
std::shared_ptr<Model> load_legacy_model(const H5File& f, bool compile);
/// Loads optimizer_weights (legacy) into a compiled model; mismatches warn.
void load_legacy_optimizer(Model& m, const H5Group& root);

// ---- keras_archive.cpp ----
void save_keras_archive(const Model& m, const std::string& path);
std::shared_ptr<Model> load_keras_archive(const std::string& path, bool compile, bool trusted);
/// The same, from bytes already in memory (fuzzing); `name` appears in errors.
std::shared_ptr<Model> load_keras_archive_bytes(std::vector<uint8_t> bytes, const std::string& name, bool compile,
                                                bool trusted);

/// Prints a warning line to stderr ("WARNING: ..."), as Keras logs them.
void warn(const std::string& msg);

}  // namespace kiln::io

#pragma once
// Loading saved models (Keras's keras.models.load_model / model_from_json).
// Model::save, save_weights and load_weights are on kiln::Model (kiln/training/model.h).
//
// Formats (shared/KERAS_FORMATS.md):
//   "x.keras"       Keras 3 zip: config.json (serialize_keras_object form),
//                   metadata.json, model.weights.h5 (layers/<snake>/vars/<i>,
//                   optimizer/vars/<i>). Written by Keras >= 3 and by Kiln.
//   "x.h5"/".hdf5"  legacy HDF5: root @model_config / @training_config /
//                   @keras_version / @backend, /model_weights (layer_names,
//                   weight_names), /optimizer_weights. Written by Keras 1, 2,
//                   tf.keras 2, Keras 3 and by Kiln (tf.keras 2 style config).
// The format is recognised from the file's first bytes, not its extension.
//
//   model.save("mnist.keras");
//   auto restored = kiln::models::load_model("mnist.keras");    // compiled, optimizer state restored
//   auto frozen   = kiln::models::load_model("mnist.h5", {.compile = false});
//   // A subclassed model or custom layer (Keras's custom_objects):
//   auto m = kiln::models::load_model("custom.keras",
//       {.custom_objects = {{"MyModel", [](const kiln::Config& c) { return make_my_model(c); }}}});
//
// Every HDF5 read goes through a sandboxed child process unless the caller
// passes {.trusted = true} or sets KILN_TRUST_FILES=1 (docs/security.md).
//
// Errors: a missing, empty, truncated, corrupt or wrong-format file throws
// kiln::IOError naming the file; a layer class Kiln does not have throws
// kiln::NotFoundError naming the file and the class; missing weights and
// shape or count mismatches throw ValueError/ShapeError naming the file, the
// layer and the variable.
#include <map>
#include <memory>
#include <string>

#include "kiln/nn/layer_registry.h"
#include "kiln/training/model.h"

namespace kiln::models {

/// Options of load_model().
struct LoadModelOptions {
  /// Compile the model from the file's compile/training config and restore the
  /// optimizer's variables (iterations, learning rate, slots).
  bool compile = true;
  /// Extra classes by Keras class name (or registered_name), for subclassed
  /// models and custom layers. They are added with kiln::register_layer_class
  /// (and stay registered; existing registrations are not replaced).
  std::map<std::string, LayerFactory> custom_objects;
  /// Safe mode (the default, as Keras's safe_mode): the file may be hostile
  /// (downloaded, from a user). libhdf5, which is not memory-safe on crafted
  /// files, then parses the HDF5 part (a .h5 file, a .keras archive's weights)
  /// in a child process confined by seccomp and resource limits, and Kiln
  /// checks what comes back before using it. A crafted file then fails with an
  /// IOError instead of crashing the process.
  /// true: the file is your own; libhdf5 reads it in this process (it also
  /// follows HDF5 external links). Setting the environment variable
  /// KILN_TRUST_FILES=1 makes every HDF5 load trusted. docs/security.md has the details.
  bool trusted = false;
};

/// Loads a whole model: architecture, weights and (with compile) the compile
/// state and optimizer state. Training can continue exactly where it stopped.
std::shared_ptr<Model> load_model(const std::string& path, LoadModelOptions options = {});

/// A model from a JSON config string (Keras's model_from_json): the output of
/// Keras's model.to_json() (Keras 1, 2 or 3) or of to_json() below. The model
/// is not compiled and has fresh weights; call load_weights next.
std::shared_ptr<Model> model_from_json(const std::string& json, LoadModelOptions options = {});
/// The same, reading the JSON from a file.
std::shared_ptr<Model> model_from_json_file(const std::string& path, LoadModelOptions options = {});
/// tf.keras 2 style JSON ({"class_name", "config", "keras_version", "backend"}).
std::string to_json(const Model& model);

}  // namespace kiln::models

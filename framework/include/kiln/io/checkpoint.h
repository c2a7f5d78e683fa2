#pragma once
// Training checkpoints: the tf.train.Checkpoint / CheckpointManager analogue.
// A Checkpoint names the objects whose state it saves (models or layers,
// optimizers, single variables); save() writes them all to one HDF5 file
// (atomically) and restore() puts the values back.
//
//   kiln::Checkpoint ckpt({{"model", model}, {"optimizer", model.optimizer()}});
//   kiln::CheckpointManager manager(ckpt, "ckpts/", {.max_to_keep = 3});
//   manager.save();                                   // ckpts/ckpt-1.h5, ckpt-2.h5, ...
//   ckpt.restore(manager.latest_checkpoint());        // "" (no checkpoint yet) is a no-op
//
// The guides' pattern works as in TensorFlow: save() creates the folder and
// records the file in the folder's "checkpoint" index, so
//   ckpt.save("./tf_ckpts/ckpt");  ...;  ckpt.restore(kiln::checkpoint::latest_checkpoint("./tf_ckpts"));
// restores the newest save.
//
// File: "<prefix>-<n>.h5"; inside, /save_counter and one group per object
// name (a name with '/' nests groups). A model or layer uses Keras 3's weights
// layout under its group (vars/<i>, layers/<snake>/vars/<i>); an optimizer and a
// kiln::Module store vars/<i> in variables() order; a variable is one dataset.
//
// Deferred restore (as TensorFlow's): restore() may run before the variables
// exist (a model not built yet, an optimizer before its first step). Those
// values are kept and assigned as soon as the variables exist: a layer's
// right after it builds (before its first call computes), an optimizer's
// right after it creates its slots (before its first update). run_restore_ops()
// on the returned status and assert_consumed() work as in TensorFlow.
// Shapes and counts are checked; mismatches throw ValueError naming the file,
// the object and the variable.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "kiln/nn/layer.h"
#include "kiln/nn/module.h"
#include "kiln/training/callback.h"
#include "kiln/training/model.h"
#include "kiln/training/optimizer.h"
#include "kiln/autodiff/variable.h"

namespace kiln {

/// One object a Checkpoint tracks: a layer or model, a kiln::Module (by
/// reference or shared pointer; the checkpoint does not own a referenced
/// object), an optimizer, or a variable.
class CheckpointItem {
 public:
  /// A layer or model, by reference (not owned).
  CheckpointItem(Layer& layer) : layer_(&layer), keep_(layer.weak_from_this().lock()) {}
  /// A layer or model, shared.
  CheckpointItem(std::shared_ptr<Layer> layer) : layer_(layer.get()), keep_(std::move(layer)) {}
  /// A layer or model of a derived class, shared.
  template <class L>
    requires std::is_base_of_v<Layer, L>
  CheckpointItem(std::shared_ptr<L> layer) : CheckpointItem(std::shared_ptr<Layer>(std::move(layer))) {}
  /// A layer through its handle (kiln::layers::Dense etc.).
  template <class T>
  CheckpointItem(const LayerHandle<T>& h) : CheckpointItem(std::shared_ptr<Layer>(h.ptr())) {}
  /// An optimizer.
  CheckpointItem(OptimizerPtr optimizer) : optimizer_(std::move(optimizer)) {}
  /// An optimizer of a derived class.
  template <class O>
    requires std::is_base_of_v<Optimizer, O>
  CheckpointItem(std::shared_ptr<O> optimizer) : optimizer_(std::move(optimizer)) {}
  /// A kiln::Module, by reference (not owned).
  CheckpointItem(Module& module) : module_(&module) {}
  /// A kiln::Module, shared.
  template <class M>
    requires std::is_base_of_v<Module, M>
  CheckpointItem(std::shared_ptr<M> module) : module_(module.get()), keep_module_(std::move(module)) {}
  /// A single variable.
  CheckpointItem(Variable variable) : variable_(std::move(variable)) {}

  /// The layer or model; null for other kinds.
  Layer* layer() const { return layer_; }
  /// The module; null for other kinds.
  Module* module() const { return module_; }
  /// The optimizer; null for other kinds.
  const OptimizerPtr& optimizer() const { return optimizer_; }
  /// The variable; undefined for other kinds.
  const Variable& variable() const { return variable_; }

 private:
  Layer* layer_ = nullptr;
  std::shared_ptr<Layer> keep_;
  OptimizerPtr optimizer_;
  Module* module_ = nullptr;
  std::shared_ptr<Module> keep_module_;
  Variable variable_;
};

namespace detail {
struct CheckpointState;
}

/// What restore() did; values for variables that did not exist yet are pending.
class CheckpointStatus {
 public:
  CheckpointStatus() = default;
  /// The status of a restore (made by Checkpoint::restore()).
  explicit CheckpointStatus(std::shared_ptr<detail::CheckpointState> s) : state_(std::move(s)) {}
  /// Values waiting for variables that do not exist yet.
  std::size_t pending() const;
  /// Assigns pending values to variables created since restore(); returns how many remain.
  std::size_t run_restore_ops() const;
  /// Throws ValueError listing what is still pending (TF's assert_consumed).
  void assert_consumed() const;

 private:
  std::shared_ptr<detail::CheckpointState> state_;
};

/// Saves and restores named objects' state to one HDF5 file (tf.train.Checkpoint).
/// restore() may run before the variables exist: their values are assigned as
/// soon as they are created. Mismatched shapes or counts throw ValueError.
class Checkpoint {
 public:
  /// {{"model", model}, {"optimizer", model.optimizer()}, {"step", step_variable}}.
  explicit Checkpoint(std::map<std::string, CheckpointItem> objects);

  /// Writes "<file_prefix>-<n>.h5" with n = ++save_counter, creating the
  /// folder, records it in the folder's "checkpoint" index (so
  /// checkpoint::latest_checkpoint finds it) and returns its path.
  std::string save(const std::string& file_prefix);
  /// Writes exactly `path` (the counter is stored but not incremented).
  std::string write(const std::string& path);
  /// Options of restore().
  struct RestoreOptions {
    /// false (the default): the file may be hostile; libhdf5 parses it in a
    /// sandboxed child process. true, or the environment variable
    /// KILN_TRUST_FILES=1: it is read in this process (as models::LoadModelOptions::trusted).
    bool trusted = false;
  };
  /// Restores from a file written by save()/write(). An empty path (no
  /// checkpoint yet) restores nothing. Also restores save_counter.
  CheckpointStatus restore(const std::string& path, RestoreOptions options);
  /// Restores with the default options.
  CheckpointStatus restore(const std::string& path) { return restore(path, RestoreOptions{}); }
  /// The number of save() calls, restored with the checkpoint (tf's save_counter).
  int64_t save_counter() const;
  /// A callback that applies pending (deferred) values when fit() starts.
  CallbackPtr restore_callback() const;

 private:
  std::shared_ptr<detail::CheckpointState> state_;
};

/// Options of CheckpointManager (tf.train.CheckpointManager's arguments).
struct CheckpointManagerOptions {
  /// Keep at most this many checkpoints (older ones are deleted); nullopt keeps all.
  std::optional<int> max_to_keep = 5;
  std::string checkpoint_name = "ckpt";  ///< File-name prefix inside the directory.
};

/// Numbered checkpoints in one folder, with a "checkpoint" index file
/// (JSON: latest and all paths) written atomically after every save.
class CheckpointManager {
 public:
  /// Manages numbered checkpoints of `checkpoint` in `directory`.
  CheckpointManager(Checkpoint checkpoint, std::string directory, CheckpointManagerOptions options = {});
  /// Saves "<directory>/<checkpoint_name>-<n>.h5" and returns its path; n is
  /// `checkpoint_number` if given, else the checkpoint's save counter + 1.
  std::string save(std::optional<int64_t> checkpoint_number = std::nullopt);
  /// The newest checkpoint's path, or "" if there is none.
  std::string latest_checkpoint() const;
  /// Kept checkpoints, oldest first.
  const std::vector<std::string>& checkpoints() const { return checkpoints_; }
  /// Restores the latest checkpoint if there is one; returns its path or "".
  std::string restore_or_initialize();
  /// The folder the checkpoints are written to.
  const std::string& directory() const { return directory_; }

 private:
  void write_index() const;
  Checkpoint checkpoint_;
  std::string directory_;
  CheckpointManagerOptions options_;
  std::vector<std::string> checkpoints_;
};

namespace checkpoint {
/// The latest checkpoint recorded in `directory`'s index file, or "".
std::string latest_checkpoint(const std::string& directory);

/// A value a checkpoint file holds: its path inside the file ("model/layers/dense/vars/0",
/// "optimizer/vars/1", "step") and its shape.
struct VariableInfo {
  std::string name;  ///< Path inside the file, e.g. "model/layers/dense/vars/0".
  Shape shape;  ///< The value's shape.
};
/// Every value in a checkpoint file, sorted by name (tf.train.list_variables).
/// The file is read through the HDF5 sandbox unless KILN_TRUST_FILES=1.
std::vector<VariableInfo> list_variables(const std::string& path);
}  // namespace checkpoint

}  // namespace kiln

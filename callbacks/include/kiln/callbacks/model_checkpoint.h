#pragma once
/// @class kiln::callbacks::ModelCheckpoint
/// ModelCheckpoint: save the model (or its weights) during fit()
/// (keras/src/callbacks/model_checkpoint.py, Keras 3 semantics).
///
/// filepath may hold Python str.format fields filled from the epoch (1-based),
/// the batch (1-based, when saving every `save_freq` batches) and the logs:
/// @code{.unparsed}
///   "ckpt-{epoch:02d}-{val_loss:.2f}.keras" -> "ckpt-03-0.41.keras"
/// @endcode
/// With save_best_only, a file is written only when `monitor` improves:
/// mode "min" (less is better), "max", or "auto" (max when the name contains
/// "acc" or starts with "fmeasure", else min). save_weights_only writes
/// model.save_weights(filepath) (".weights.h5" or ".h5"), otherwise
/// model.save(filepath) (".keras" or ".h5"). save_freq 0 means "epoch"; N > 0
/// saves every N batches. Every write is atomic (see Model::save).
///
/// @code{.unparsed}
///   kiln::callbacks::ModelCheckpoint ckpt({.filepath = "best.keras", .monitor = "val_loss",
///                                          .save_best_only = true});
///   model.fit(x, y, {.epochs = 10, .callbacks = {ckpt}, .validation_split = 0.2});
/// @endcode
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>

#include "kiln/training/callback.h"

namespace kiln::callbacks {

/// Options of ModelCheckpoint (keras.callbacks.ModelCheckpoint's arguments and defaults).
struct ModelCheckpointOptions {
  std::string filepath;  ///< Where to save; may hold str.format fields such as {epoch:02d} (required).
  std::string monitor = "val_loss";  ///< The logs key compared with save_best_only.
  int verbose = 0;  ///< 1: print a message for each save.
  bool save_best_only = false;  ///< Save only when the monitored value improves.
  bool save_weights_only = false;  ///< Save the weights only (model.save_weights) rather than the whole model.
  std::string mode = "auto";  ///< "auto" (from the monitor's name), "min" or "max".
  int save_freq = 0;  ///< 0: every epoch (Keras's "epoch"); N: every N batches.
  std::optional<double> initial_value_threshold;  ///< With save_best_only: the value to beat first; none by default.
};

class ModelCheckpoint : public Callback {
 public:
  /// Rank 0 alone writes in a multi-process run.
  bool chief_only() const override { return true; }
  /// Takes every setting from options (Keras's defaults).
  explicit ModelCheckpoint(ModelCheckpointOptions options);
  /// Keras's positional form, ModelCheckpoint("best.keras", {.save_best_only = true}); a
  /// filepath also set in `options` must be the same.
  /// (A template, so a braced list of options never reads as a path.)
  template <class Path>
    requires std::is_convertible_v<Path, std::string>
  explicit ModelCheckpoint(Path&& filepath, ModelCheckpointOptions options = {})
      : ModelCheckpoint(with_path(std::string(std::forward<Path>(filepath)), std::move(options))) {}
  void on_epoch_begin(int epoch, const Logs& logs) override;
  void on_epoch_end(int epoch, Logs& logs) override;
  void on_train_batch_end(int batch, const Logs& logs) override;

  /// Best monitored value so far (+inf / -inf before the first save).
  double best = 0.0;
  /// Paths written, in order.
  std::vector<std::string> saved;
  /// The options given at construction.
  const ModelCheckpointOptions& options() const { return options_; }

 private:
  static ModelCheckpointOptions with_path(std::string path, ModelCheckpointOptions options);
  void save_model(int epoch, std::optional<int> batch, const Logs& logs);
  bool better(double current) const;

  ModelCheckpointOptions options_;
  bool maximize_ = false;
  int current_epoch_ = 0;
  int batches_since_save_ = 0;
  int last_batch_seen_ = -1;
};

/// A value for format_filepath: an int (epoch, batch) or a float (logs).
using FormatValue = std::variant<int64_t, double>;
/// Python's str.format for the subset Keras file names use: "{name}" and
/// "{name:spec}" with spec [[fill]align][sign][#][0][width][,][.precision][type],
/// types d, f, F, e, E, g, G, %, s; "{{" and "}}" are literal braces. A float
/// with no spec prints as Python's str(float). Unknown names throw ValueError
/// listing the available ones (Python raises KeyError).
std::string format_filepath(const std::string& pattern, const std::map<std::string, FormatValue>& values);

}  // namespace kiln::callbacks

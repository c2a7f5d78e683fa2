#pragma once
/// @class kiln::callbacks::BackupAndRestore
/// BackupAndRestore: survive interruptions of fit()
/// (keras/src/callbacks/backup_and_restore.py, Keras 3 semantics).
///
/// Every epoch (or every `save_freq` batches) the callback writes the weights
/// AND optimizer state to a new `<backup_dir>/backup-<n>.weights.h5`, then commits
/// it by atomically replacing `<backup_dir>/training_metadata.json`
/// (`{"epoch": e, "batch": b, "weights": "backup-<n>.weights.h5", ...}`). The
/// metadata is the one commit point, so a kill at any moment leaves weights
/// and epoch that belong together. When a killed run is started again with the
/// same callback, on_train_begin loads that state and training resumes at the
/// first unfinished epoch. The backup also holds the state of kiln::random's
/// global generator, which draws fit's shuffle order and Dropout's masks, so
/// with per-epoch backups (save_freq = 0) the resumed run ends with exactly the
/// weights of an uninterrupted one, shuffle and Dropout included. (A layer's
/// own fixed seed, as Dropout({.seed = s}), counts calls in the layer and
/// restarts; a Dataset's shuffle keeps its own pass count.) The backup is
/// deleted when fit() ends normally (delete_checkpoint). A folder written by
/// Keras or an earlier Kiln (latest.weights.h5 + metadata without "weights") is
/// read too.
///
/// Kiln's fit() reads initial_epoch before callbacks run, so pass the resume
/// epoch explicitly (Keras sets model._initial_epoch from the callback):
/// @code{.unparsed}
///   auto backup = std::make_shared<kiln::callbacks::BackupAndRestore>(
///       kiln::callbacks::BackupAndRestoreOptions{.backup_dir = "backup/"});
///   model.fit(x, y, {.epochs = 10, .callbacks = {backup}, .initial_epoch = backup->initial_epoch()});
/// @endcode
/// The model must be built before fit() (an Input layer, or build_for()).
#include <optional>
#include <string>
#include <type_traits>

#include "kiln/core/config.h"

#include "kiln/training/callback.h"

namespace kiln::callbacks {

/// Options of BackupAndRestore (keras.callbacks.BackupAndRestore's arguments and defaults).
struct BackupAndRestoreOptions {
  std::string backup_dir;  ///< The folder holding the backups and training_metadata.json (required).
  int save_freq = 0;  ///< 0: every epoch (Keras's "epoch"); N: every N batches.
  /// Keep the previous backup too, and resume from it if the latest one cannot be read.
  bool double_checkpoint = false;
  /// Remove backup_dir when training ends without interruption.
  bool delete_checkpoint = true;
};

class BackupAndRestore : public Callback {
 public:
  /// Takes every setting from options (Keras's defaults).
  explicit BackupAndRestore(BackupAndRestoreOptions options);
  /// Keras's positional form, BackupAndRestore("backup", {...}); a backup_dir also set in
  /// `options` must be the same.
  /// (A template, so a braced list of options never reads as a path.)
  template <class Path>
    requires std::is_convertible_v<Path, std::string>
  explicit BackupAndRestore(Path&& backup_dir, BackupAndRestoreOptions options = {})
      : BackupAndRestore(with_path(std::string(std::forward<Path>(backup_dir)), std::move(options))) {}
  /// The epoch recorded by the last backup (0 if there is none): fit's initial_epoch.
  int initial_epoch() const;
  void on_train_begin(const Logs& logs) override;
  void on_epoch_begin(int epoch, const Logs& logs) override;
  void on_epoch_end(int epoch, Logs& logs) override;
  void on_train_batch_end(int batch, const Logs& logs) override;
  void on_train_end(const Logs& logs) override;
  /// The weights file of the last backup written or restored ("" before any).
  const std::string& weights_path() const { return weights_path_; }

 protected:
  /// Runs after a backup's weights file is written and before the metadata
  /// commits it; tests override it to simulate a crash between the two.
  virtual void before_commit() {}

 private:
  static BackupAndRestoreOptions with_path(std::string path, BackupAndRestoreOptions options);
  void save();
  std::optional<Config> read_metadata() const;
  std::string committed_weights_path(const Config& entry) const;
  void restore(Model& m, const Config& entry);
  void remove_unreferenced_weights(const Config& meta) const;
  BackupAndRestoreOptions options_;
  std::string weights_path_, metadata_path_;
  int64_t sequence_ = 0;
  std::string epoch_random_state_;
  int current_epoch_ = 0;
  int batches_since_save_ = 0;
  int last_batch_seen_ = -1;
};

}  // namespace kiln::callbacks

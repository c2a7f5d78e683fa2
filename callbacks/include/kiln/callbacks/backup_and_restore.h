#pragma once
// BackupAndRestore: survive interruptions of fit()
// (keras/src/callbacks/backup_and_restore.py, Keras 3 semantics).
//
// Every epoch (or every `save_freq` batches) the callback writes
// <backup_dir>/latest.weights.h5 (weights AND optimizer state, atomically)
// and <backup_dir>/training_metadata.json ({"epoch": e, "batch": b}). When a
// killed run is started again with the same callback, on_train_begin loads
// that state and training resumes at the first unfinished epoch; with the same
// data order the result is the same as an uninterrupted run. The backup is
// deleted when fit() ends normally (delete_checkpoint).
//
// Kiln's fit() reads initial_epoch before callbacks run, so pass the resume
// epoch explicitly (Keras sets model._initial_epoch from the callback):
//   auto backup = std::make_shared<kiln::callbacks::BackupAndRestore>(
//       kiln::callbacks::BackupAndRestoreOptions{.backup_dir = "backup/"});
//   model.fit(x, y, {.epochs = 10, .callbacks = {backup}, .initial_epoch = backup->initial_epoch()});
// The model must be built before fit() (an Input layer, or build_for()).
#include <string>

#include "kiln/training/callback.h"

namespace kiln::callbacks {

struct BackupAndRestoreOptions {
  std::string backup_dir;
  int save_freq = 0;  // 0: every epoch; N: every N batches
  /// Keep the previous backup as latest.weights.h5.bkp too.
  bool double_checkpoint = false;
  /// Remove backup_dir when training ends without interruption.
  bool delete_checkpoint = true;
};

class BackupAndRestore : public Callback {
 public:
  explicit BackupAndRestore(BackupAndRestoreOptions options);
  /// The epoch recorded by the last backup (0 if there is none): fit's initial_epoch.
  int initial_epoch() const;
  void on_train_begin(const Logs& logs) override;
  void on_epoch_end(int epoch, Logs& logs) override;
  void on_train_batch_end(int batch, const Logs& logs) override;
  void on_train_end(const Logs& logs) override;
  const std::string& weights_path() const { return weights_path_; }

 private:
  void save();
  BackupAndRestoreOptions options_;
  std::string weights_path_, metadata_path_;
  int current_epoch_ = 0;
  int batches_since_save_ = 0;
  int last_batch_seen_ = -1;
};

}  // namespace kiln::callbacks

#include "kiln/callbacks/backup_and_restore.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "io/atomic_file.h"
#include "kiln/core/error.h"
#include "kiln/training/model.h"

namespace kiln::callbacks {

namespace fs = std::filesystem;

BackupAndRestore::BackupAndRestore(BackupAndRestoreOptions o) : options_(std::move(o)) {
  if (options_.backup_dir.empty()) throw ValueError("BackupAndRestore: empty `backup_dir` argument passed");
  if (options_.save_freq < 0)
    throw ValueError("BackupAndRestore: invalid value for argument `save_freq`. Received: save_freq=" +
                     std::to_string(options_.save_freq) + ". Expected either 0 (\"epoch\") or a positive integer");
  weights_path_ = (fs::path(options_.backup_dir) / "latest.weights.h5").string();
  metadata_path_ = (fs::path(options_.backup_dir) / "training_metadata.json").string();
}

int BackupAndRestore::initial_epoch() const {
  if (!fs::exists(metadata_path_)) return 0;
  const auto bytes = io::read_file_bytes(metadata_path_);
  try {
    return Config::parse(bytes.begin(), bytes.end()).at("epoch").get<int>();
  } catch (const nlohmann::json::exception& e) {
    throw IOError(metadata_path_ + ": corrupt training metadata: " + e.what());
  }
}

void BackupAndRestore::on_train_begin(const Logs&) {
  Model* m = model();
  if (!m) throw ValueError("BackupAndRestore: no model set (use it through fit())");
  if (!m->built())
    throw ValueError("To use the BackupAndRestore callback, you model must be built before you call `fit()`. Model '" +
                     m->name() + "' is unbuilt. You can build it beforehand by giving it an Input layer or calling "
                     "build_for(input_shape).");
  current_epoch_ = initial_epoch();
  // Resume where the interrupted run stopped, as Keras sets model._initial_epoch.
  if (current_epoch_ > 0) m->initial_epoch_override = current_epoch_;
  if (fs::exists(weights_path_)) {
    // Keras builds the optimizer before callbacks run, so its slots load too.
    if (m->optimizer() && !m->optimizer()->built()) m->optimizer()->build(m->trainable_variables());
    m->load_weights(weights_path_);
  }
}

void BackupAndRestore::on_epoch_end(int epoch, Logs&) {
  current_epoch_ = epoch + 1;
  last_batch_seen_ = -1;
  if (options_.save_freq == 0) save();
}

void BackupAndRestore::on_train_batch_end(int batch, const Logs&) {
  if (options_.save_freq == 0) return;
  const int add = batch <= last_batch_seen_ ? batch + 1 : batch - last_batch_seen_;
  batches_since_save_ += add;
  last_batch_seen_ = batch;
  if (batches_since_save_ >= options_.save_freq) {
    batches_since_save_ = 0;
    save();
  }
}

void BackupAndRestore::save() {
  fs::create_directories(options_.backup_dir);
  if (options_.double_checkpoint && fs::exists(weights_path_))
    fs::copy_file(weights_path_, weights_path_ + ".bkp", fs::copy_options::overwrite_existing);
  model()->save_weights(weights_path_);  // atomic, with the optimizer state
  const std::string meta = Config{{"epoch", current_epoch_}, {"batch", last_batch_seen_ < 0 ? 0 : last_batch_seen_}}.dump();
  io::atomic_write_bytes(metadata_path_, std::vector<uint8_t>(meta.begin(), meta.end()));
}

void BackupAndRestore::on_train_end(const Logs&) {
  if (options_.delete_checkpoint && fs::exists(options_.backup_dir)) {
    std::error_code ec;
    fs::remove_all(options_.backup_dir, ec);
  }
}

}  // namespace kiln::callbacks

#include "kiln/callbacks/backup_and_restore.h"

#include "kiln/distribute/data_parallel.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "callback_utils.h"
#include "core/json_int.h"
#include "io/atomic_file.h"
#include "kiln/core/error.h"
#include "kiln/ops/random.h"
#include "kiln/training/model.h"

namespace kiln::callbacks {

namespace fs = std::filesystem;

namespace {

constexpr const char* kMetadataFile = "training_metadata.json";
// What Keras and earlier Kiln versions wrote; read when the metadata names no file.
constexpr const char* kLegacyWeightsFile = "latest.weights.h5";
constexpr const char* kWeightsPrefix = "backup-";
constexpr const char* kWeightsSuffix = ".weights.h5";

std::string weights_file_name(int64_t sequence) {
  return kWeightsPrefix + std::to_string(sequence) + kWeightsSuffix;
}

bool is_backup_weights_file(const std::string& name) {
  const std::string prefix = kWeightsPrefix, suffix = kWeightsSuffix;
  return name == kLegacyWeightsFile ||
         (name.size() > prefix.size() + suffix.size() && name.compare(0, prefix.size(), prefix) == 0 &&
          name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0);
}

}  // namespace

BackupAndRestoreOptions BackupAndRestore::with_path(std::string path, BackupAndRestoreOptions options) {
  return detail::with_positional("BackupAndRestore", "backup_dir", std::move(path), std::move(options),
                                 &BackupAndRestoreOptions::backup_dir);
}

BackupAndRestore::BackupAndRestore(BackupAndRestoreOptions o) : options_(std::move(o)) {
  if (options_.backup_dir.empty()) throw ValueError("BackupAndRestore: empty `backup_dir` argument passed");
  if (options_.save_freq < 0)
    throw ValueError("BackupAndRestore: invalid value for argument `save_freq`. Received: save_freq=" +
                     std::to_string(options_.save_freq) + ". Expected either 0 (\"epoch\") or a positive integer");
  metadata_path_ = (fs::path(options_.backup_dir) / kMetadataFile).string();
}

std::optional<Config> BackupAndRestore::read_metadata() const {
  if (!fs::exists(metadata_path_)) return std::nullopt;
  const auto bytes = io::read_file_bytes(metadata_path_);
  try {
    Config meta = parse_json(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    (void)::kiln::detail::json_int(meta.at("epoch"), metadata_path_ + ": corrupt training metadata: epoch", 0, INT32_MAX);
    return meta;
  } catch (const nlohmann::json::exception& e) {
    throw IOError(metadata_path_ + ": corrupt training metadata: " + e.what());
  } catch (const ValueError& e) {
    throw IOError(e.what());
  }
}

int BackupAndRestore::initial_epoch() const {
  const auto meta = read_metadata();
  return meta ? static_cast<int>((*meta)["epoch"].get<int64_t>()) : 0;  // range-checked in read_metadata
}

std::string BackupAndRestore::committed_weights_path(const Config& entry) const {
  const std::string name = entry.value("weights", std::string(kLegacyWeightsFile));
  if (name.empty() || fs::path(name).filename().string() != name)
    throw IOError(metadata_path_ + ": corrupt training metadata: bad weights file name '" + name + "'");
  return (fs::path(options_.backup_dir) / name).string();
}

void BackupAndRestore::restore(Model& m, const Config& entry) {
  current_epoch_ = static_cast<int>(
      ::kiln::detail::json_int(entry.at("epoch"), metadata_path_ + ": corrupt training metadata: epoch", 0, INT32_MAX));
  weights_path_ = committed_weights_path(entry);
  if (!fs::exists(weights_path_))
    throw IOError(metadata_path_ + ": the backup's weights file " + weights_path_ + " is missing");
  // Keras builds the optimizer before callbacks run, so its slots load too.
  if (m.optimizer() && !m.optimizer()->built()) m.optimizer()->build(m.trainable_variables());
  m.load_weights(weights_path_);
  // The generator that shuffles the next epoch and draws Dropout's masks goes
  // on from where the interrupted run left it, so the rest of the run is the same.
  if (entry.contains("random_state")) random::set_state(entry["random_state"].get<std::string>());
}

void BackupAndRestore::on_train_begin(const Logs&) {
  Model* m = model();
  if (!m) throw ValueError("BackupAndRestore: no model set (use it through fit())");
  if (!m->built())
    throw ValueError("To use the BackupAndRestore callback, you model must be built before you call `fit()`. Model '" +
                     m->name() + "' is unbuilt. You can build it beforehand by giving it an Input layer or calling "
                     "build_for(input_shape).");
  current_epoch_ = 0;
  weights_path_.clear();
  sequence_ = 0;
  if (const auto meta = read_metadata()) {
    sequence_ = meta->value("sequence", int64_t(0));
    try {
      restore(*m, *meta);
    } catch (const Error&) {
      // double_checkpoint: the previous backup is kept for a current one that cannot be read.
      if (!meta->contains("previous")) throw;
      restore(*m, (*meta)["previous"]);
    }
  }
  // Resume where the interrupted run stopped, as Keras sets model._initial_epoch.
  if (current_epoch_ > 0) m->initial_epoch_override = current_epoch_;
}

void BackupAndRestore::on_epoch_begin(int, const Logs&) {
  // A backup taken mid-epoch resumes at the start of this epoch: it needs the state that drew its order.
  if (options_.save_freq > 0) epoch_random_state_ = random::get_state();
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

// A backup is one commit: the weights go to a new file that nothing refers to
// yet, then one atomic rename of the metadata names that file together with
// its epoch. A crash before the rename leaves the previous metadata, which
// still names the previous (untouched) weights; files no metadata names are
// removed after the next commit.
void BackupAndRestore::save() {
  // Every rank restores; rank 0 alone writes (kiln/distribute).
  if (!distribute::is_chief()) return;
  fs::create_directories(options_.backup_dir);
  const std::optional<Config> previous = read_metadata();
  const std::string name = weights_file_name(++sequence_);
  model()->save_weights((fs::path(options_.backup_dir) / name).string());  // atomic, with the optimizer state
  before_commit();
  Config meta{{"epoch", current_epoch_},
              {"batch", last_batch_seen_ < 0 ? 0 : last_batch_seen_},
              {"weights", name},
              {"sequence", sequence_},
              // At an epoch's end the generator is where the next epoch starts drawing.
              {"random_state", options_.save_freq == 0 ? random::get_state() : epoch_random_state_}};
  if (options_.double_checkpoint && previous) {
    Config prev = *previous;
    prev.erase("previous");
    prev.erase("sequence");
    if (!prev.contains("weights")) prev["weights"] = kLegacyWeightsFile;
    meta["previous"] = prev;
  }
  const std::string text = meta.dump();
  io::atomic_write_bytes(metadata_path_, std::vector<uint8_t>(text.begin(), text.end()));
  weights_path_ = (fs::path(options_.backup_dir) / name).string();
  remove_unreferenced_weights(meta);
}

void BackupAndRestore::remove_unreferenced_weights(const Config& meta) const {
  std::vector<std::string> keep{meta["weights"].get<std::string>()};
  if (meta.contains("previous")) keep.push_back(meta["previous"]["weights"].get<std::string>());
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(options_.backup_dir, ec)) {
    const std::string n = e.path().filename().string();
    if (is_backup_weights_file(n) && std::find(keep.begin(), keep.end(), n) == keep.end()) fs::remove(e.path(), ec);
  }
}

void BackupAndRestore::on_train_end(const Logs&) {
  if (options_.delete_checkpoint && distribute::is_chief() && fs::exists(options_.backup_dir)) {
    std::error_code ec;
    fs::remove_all(options_.backup_dir, ec);
  }
}

}  // namespace kiln::callbacks

#pragma once
/// @class kiln::callbacks::TensorBoard
/// TensorBoard: writes real event files that `tensorboard --logdir <log_dir>` opens
/// (keras/src/callbacks/tensorboard.py; file format in kiln/io/event_file.h).
///
/// Layout: `<log_dir>/train/events.out.tfevents.*` and `<log_dir>/validation/events.out.tfevents.*`,
/// each created on first use. What is written:
/// - every epoch end, step = epoch: train/ "epoch_<key>" for each log key without
/// @code{.unparsed}
///   the "val_" prefix, plus "epoch_learning_rate" (the optimizer's rate);
///   validation/ "epoch_<key>" for each "val_<key>";
/// @endcode
/// - update_freq = N (or "batch" = 1): train/ "batch_<key>" every N-th training
/// @code{.unparsed}
///   batch, step = the global batch count (1, 2, ... across epochs);
/// @endcode
/// - after each evaluation (fit's validation included): validation/
/// @code{.unparsed}
///   "evaluation_<key>_vs_iterations" at step = optimizer iterations;
/// @endcode
/// - histogram_freq = N: every N-th epoch (epoch % N == 0), train/ a histogram
/// @code{.unparsed}
///   "<variable path>/histogram" (':' replaced by '_') of every model weight.
/// @endcode
/// write_graph is accepted and ignored (there is no TF graph to write).
///
/// @code{.unparsed}
///   kiln::callbacks::TensorBoard tb("logs/run1", {.histogram_freq = 1, .update_freq = 10});
///   model.fit(x, y, {.epochs = 5, .validation_split = 0.2, .callbacks = {tb}});
/// @endcode
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "kiln/training/callback.h"

namespace kiln::io {
class EventFileWriter;
}

namespace kiln::callbacks {

using io::EventFileWriter;

/// "epoch" (0: write at epoch ends only), "batch" (1) or a number of batches.
class UpdateFreq {
 public:
  /// Every `batches` batches; throws ValueError unless batches >= 1.
  UpdateFreq(int batches);
  /// "epoch" or "batch".
  UpdateFreq(const char* s) : UpdateFreq(std::string(s)) {}
  /// "epoch" or "batch"; throws ValueError for anything else.
  UpdateFreq(const std::string& s);
  /// 0 for "epoch".
  int batches() const { return batches_; }

 private:
  int batches_ = 0;
};

/// The batches TensorBoard profiles (Keras's profile_batch): 0 for none, one
/// batch (`5`), or a range of batches counted from 1 over the whole fit (`{10, 15}`).
class ProfileBatch {
 public:
  /// One batch, or 0 for none; throws ValueError for a negative number.
  ProfileBatch(int batch) : ProfileBatch(batch, batch) {}  // NOLINT: implicit, as Keras takes an int
  /// Batches start..stop; throws ValueError unless 0 <= start <= stop.
  ProfileBatch(int start, int stop);
  int start() const { return start_; }  ///< The first batch profiled (0: profiling is off).
  int stop() const { return stop_; }    ///< The last batch profiled.

 private:
  int start_ = 0, stop_ = 0;
};

/// Options of TensorBoard (keras.callbacks.TensorBoard's arguments besides log_dir, and defaults).
struct TensorBoardOptions {
  int histogram_freq = 0;  ///< Every this many epochs, write weight histograms; 0: never.
  bool write_graph = true;  ///< Accepted and ignored (there is no TF graph).
  UpdateFreq update_freq = "epoch";  ///< When to write the scalars: "epoch", "batch" or every N batches.
  /// Batches to trace with kiln::profiler (written under log_dir/train/plugins/profile/); 0: none.
  ProfileBatch profile_batch = 0;
};

class TensorBoard : public Callback {
 public:
  /// Rank 0 alone writes in a multi-process run.
  bool chief_only() const override { return true; }
  /// log_dir: where the train/ and validation/ event files go (Keras's default "logs").
  explicit TensorBoard(std::string log_dir = "logs", TensorBoardOptions options = {});
  ~TensorBoard() override;
  /// Copies carry the configuration; their files are their own.
  TensorBoard(const TensorBoard& other);
  TensorBoard& operator=(const TensorBoard&) = delete;

  void set_model(Model* m) override;
  void on_train_begin(const Logs& logs) override;
  void on_train_end(const Logs& logs) override;
  void on_train_batch_begin(int batch, const Logs& logs) override;
  void on_train_batch_end(int batch, const Logs& logs) override;
  void on_test_end(const Logs& logs) override;
  void on_epoch_end(int epoch, Logs& logs) override;

  /// The log_dir given at construction.
  const std::string& log_dir() const { return log_dir_; }
  /// Path of the train/ event file ("" until it is created).
  std::string train_file() const;
  /// Path of the validation/ event file ("" until it is created).
  std::string validation_file() const;
  /// Flushes and closes the files (done at the end of training).
  void close();
  /// The trace file of the last profiled range ("" before one ends); kiln::profiler::summary() sums it up.
  const std::string& profile_file() const { return profile_path_; }

 private:
  EventFileWriter& train_writer();
  EventFileWriter& val_writer();
  void log_weights(int epoch);
  void stop_trace();

  std::string log_dir_;
  TensorBoardOptions options_;
  std::unique_ptr<EventFileWriter> train_, val_;
  int64_t global_train_batch_ = 0;
  bool tracing_ = false;  // this callback started the profiler
  std::string profile_path_;
};

}  // namespace kiln::callbacks

#pragma once
// Callback base with all of Keras's hooks. Concrete callbacks live in
// callbacks/; History and ProgbarLogger live in framework because fit() always
// adds them. To add a callback: derive from Callback and override the hooks.
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "kiln/training/logs.h"

namespace kiln {

class Model;

/// What fit/evaluate/predict tell callbacks (Keras's callback.params).
struct CallbackParams {
  int epochs = 1;  ///< The number of epochs of fit().
  int steps = 0;  ///< batches per epoch (0 if unknown)
  int verbose = 1;  ///< Verbosity: 0 silent, 1 progress bar, 2 one line per epoch.
};

/// Base of every callback (Keras's keras.callbacks.Callback): fit(), evaluate()
/// and predict() call its hooks; override the ones needed. `logs` holds the
/// running metric values ("loss", "val_accuracy", ...).
class Callback {
 public:
  virtual ~Callback() = default;
  /// Sets the model being trained (called by fit/evaluate/predict).
  virtual void set_model(Model* m) { model_ = m; }
  /// Sets the run's parameters (called by fit/evaluate/predict).
  virtual void set_params(const CallbackParams& p) { params_ = p; }
  /// The model being trained; null before the run starts.
  Model* model() const { return model_; }
  /// The run's parameters (Keras's callback.params).
  const CallbackParams& params() const { return params_; }

  /// At the start of fit().
  virtual void on_train_begin(const Logs&) {}
  /// At the end of fit(), with the last epoch's logs.
  virtual void on_train_end(const Logs&) {}
  /// At the start of each epoch (0-based).
  virtual void on_epoch_begin(int /*epoch*/, const Logs&) {}
  /// At the end of each epoch, with its training and validation logs; callbacks may add entries.
  virtual void on_epoch_end(int /*epoch*/, Logs&) {}
  /// Before each training batch.
  virtual void on_train_batch_begin(int /*batch*/, const Logs&) {}
  /// After each training batch, with the running averages so far this epoch.
  virtual void on_train_batch_end(int /*batch*/, const Logs&) {}
  /// At the start of evaluate() (also for fit()'s validation).
  virtual void on_test_begin(const Logs&) {}
  /// At the end of evaluate(), with its results.
  virtual void on_test_end(const Logs&) {}
  /// Before each evaluation batch.
  virtual void on_test_batch_begin(int /*batch*/, const Logs&) {}
  /// After each evaluation batch, with the running averages.
  virtual void on_test_batch_end(int /*batch*/, const Logs&) {}
  /// At the start of predict().
  virtual void on_predict_begin(const Logs&) {}
  /// At the end of predict().
  virtual void on_predict_end(const Logs&) {}
  /// Before each prediction batch.
  virtual void on_predict_batch_begin(int /*batch*/, const Logs&) {}
  /// After each prediction batch.
  virtual void on_predict_batch_end(int /*batch*/, const Logs&) {}

  /// Whether only the chief (rank 0) of a multi-process run calls this
  /// callback at all: those that print or write files (kiln/distribute).
  virtual bool chief_only() const { return false; }

 protected:
  Model* model_ = nullptr;  ///< The model being trained (not owned); null before the run starts.
  CallbackParams params_;  ///< The run's parameters.
};
using CallbackPtr = std::shared_ptr<Callback>;  ///< A shared callback.

/// fit()'s callbacks: a callback object the caller keeps, a temporary, or a
/// shared pointer. A named object is used in place, not copied, so what fit
/// leaves in it (EarlyStopping::stopped_epoch, History::history) is readable
/// afterwards, as with Keras's callback objects; it must outlive the call.
///   callbacks::EarlyStopping es({.patience = 2});
///   model.fit(x, y, {.callbacks = {es, callbacks::CSVLogger("log.csv")}});
///   es.stopped_epoch;
/// A const object cannot be passed: fit changes its callbacks.
class CallbackArg {
 public:
  /// A shared callback.
  CallbackArg(CallbackPtr p) : ptr_(std::move(p)) {}
  /// A named callback object, used in place (not copied); it must outlive the call.
  template <class C>
    requires(std::is_base_of_v<Callback, C> && !std::is_const_v<C>)
  CallbackArg(C& c) : ptr_(CallbackPtr(CallbackPtr(), &c)) {}
  /// A temporary callback, moved into a shared pointer.
  template <class C>
    requires(std::is_base_of_v<Callback, C> && !std::is_reference_v<C>)
  CallbackArg(C&& c) : ptr_(std::make_shared<C>(std::move(c))) {}
  /// Const callbacks are refused: fit changes its callbacks.
  template <class C>
    requires std::is_base_of_v<Callback, C>
  CallbackArg(const C& c) = delete;
  /// A shared callback of a derived class.
  template <class C>
    requires std::is_base_of_v<Callback, C>
  CallbackArg(std::shared_ptr<C> c) : ptr_(std::move(c)) {}
  /// The callback.
  const CallbackPtr& ptr() const { return ptr_; }

 private:
  CallbackPtr ptr_;
};

/// Records every epoch's logs: history.history["val_loss"][epoch].
class History : public Callback {
 public:
  std::map<std::string, std::vector<double>> history;  ///< Per-key values, one per epoch (Keras's history.history).
  std::vector<int> epoch;  ///< The epoch indices recorded (Keras's history.epoch).
  /// Keys in the order they first appeared.
  std::vector<std::string> keys() const { return keys_; }
  void on_train_begin(const Logs&) override;
  void on_epoch_end(int e, Logs& logs) override;
  /// history[key]; throws ValueError when the key was never logged.
  const std::vector<double>& operator[](const std::string& key) const;

 private:
  std::vector<std::string> keys_;
};

/// The tf.keras progress bar: "5/5 [==============================] - 7s 6ms/step - loss: 1.6298".
/// Redrawn in place with a carriage return on a terminal; only each epoch's final line otherwise.
class ProgbarLogger : public Callback {
 public:
  /// "steps" counts batches (fit/evaluate/predict).
  explicit ProgbarLogger(bool force_tty = false) : force_tty_(force_tty) {}
  void on_train_begin(const Logs&) override;
  void on_train_end(const Logs&) override { in_fit_ = false; }
  void on_epoch_begin(int epoch, const Logs&) override;
  void on_train_batch_end(int batch, const Logs& logs) override;
  void on_epoch_end(int epoch, Logs& logs) override;
  void on_test_begin(const Logs&) override;
  void on_test_batch_end(int batch, const Logs& logs) override;
  void on_test_end(const Logs& logs) override;
  void on_predict_begin(const Logs&) override;
  void on_predict_batch_end(int batch, const Logs& logs) override;
  void on_predict_end(const Logs&) override;
  /// Where lines go (std::cout by default); tests point it at a stringstream.
  void set_stream(std::ostream* os, bool is_tty) { os_ = os; tty_ = is_tty; stream_set_ = true; }
  bool chief_only() const override { return true; }

 private:
  void start(int target);
  void update(int current, const Logs& logs, bool finalize);
  std::ostream* os_ = nullptr;
  bool tty_ = false;
  bool stream_set_ = false;
  bool force_tty_ = false;
  bool in_fit_ = false;
  int target_ = 0;
  int seen_ = 0;
  double start_time_ = 0;
  double last_update_ = 0;
  double first_step_time_ = -1;
  std::size_t prev_width_ = 0;
  Logs last_logs_;
};

/// Formats a logged value like Keras: %.4f, or %.4e when |v| <= 1e-3 (and v != 0).
std::string format_log_value(double v);

}  // namespace kiln

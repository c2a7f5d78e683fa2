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
  int epochs = 1;
  int steps = 0;  // batches per epoch (0 if unknown)
  int verbose = 1;
};

class Callback {
 public:
  virtual ~Callback() = default;
  virtual void set_model(Model* m) { model_ = m; }
  virtual void set_params(const CallbackParams& p) { params_ = p; }
  Model* model() const { return model_; }
  const CallbackParams& params() const { return params_; }

  virtual void on_train_begin(const Logs&) {}
  virtual void on_train_end(const Logs&) {}
  virtual void on_epoch_begin(int /*epoch*/, const Logs&) {}
  virtual void on_epoch_end(int /*epoch*/, Logs&) {}
  virtual void on_train_batch_begin(int /*batch*/, const Logs&) {}
  virtual void on_train_batch_end(int /*batch*/, const Logs&) {}
  virtual void on_test_begin(const Logs&) {}
  virtual void on_test_end(const Logs&) {}
  virtual void on_test_batch_begin(int /*batch*/, const Logs&) {}
  virtual void on_test_batch_end(int /*batch*/, const Logs&) {}
  virtual void on_predict_begin(const Logs&) {}
  virtual void on_predict_end(const Logs&) {}
  virtual void on_predict_batch_begin(int /*batch*/, const Logs&) {}
  virtual void on_predict_batch_end(int /*batch*/, const Logs&) {}

  /// Whether only the chief (rank 0) of a multi-process run calls this
  /// callback at all: those that print or write files (kiln/distribute).
  virtual bool chief_only() const { return false; }

 protected:
  Model* model_ = nullptr;
  CallbackParams params_;
};
using CallbackPtr = std::shared_ptr<Callback>;

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
  CallbackArg(CallbackPtr p) : ptr_(std::move(p)) {}
  template <class C>
    requires(std::is_base_of_v<Callback, C> && !std::is_const_v<C>)
  CallbackArg(C& c) : ptr_(CallbackPtr(CallbackPtr(), &c)) {}
  template <class C>
    requires(std::is_base_of_v<Callback, C> && !std::is_reference_v<C>)
  CallbackArg(C&& c) : ptr_(std::make_shared<C>(std::move(c))) {}
  template <class C>
    requires std::is_base_of_v<Callback, C>
  CallbackArg(const C& c) = delete;
  template <class C>
    requires std::is_base_of_v<Callback, C>
  CallbackArg(std::shared_ptr<C> c) : ptr_(std::move(c)) {}
  const CallbackPtr& ptr() const { return ptr_; }

 private:
  CallbackPtr ptr_;
};

/// Records every epoch's logs: history.history["val_loss"][epoch].
class History : public Callback {
 public:
  std::map<std::string, std::vector<double>> history;
  std::vector<int> epoch;
  /// Keys in the order they first appeared.
  std::vector<std::string> keys() const { return keys_; }
  void on_train_begin(const Logs&) override;
  void on_epoch_end(int e, Logs& logs) override;
  const std::vector<double>& operator[](const std::string& key) const;

 private:
  std::vector<std::string> keys_;
};

/// The tf.keras progress bar: "5/5 [==============================] - 7s 6ms/step - loss: 1.6298".
/// Redrawn in place with \r on a terminal; only each epoch's final line otherwise.
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

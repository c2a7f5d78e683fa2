#pragma once
/// @class kiln::callbacks::LambdaCallback
/// LambdaCallback: a callback built from functions, one per hook; unset hooks
/// do nothing (keras/src/callbacks/lambda_callback.py).
///
/// @code{.unparsed}
///   std::vector<double> losses;
///   kiln::callbacks::LambdaCallback cb({
///       .on_epoch_end = [&](int epoch, kiln::Logs& logs) { losses.push_back(logs.at("loss")); }});
/// @endcode
#include <functional>

#include "kiln/training/callback.h"

namespace kiln::callbacks {

/// The functions of a LambdaCallback (keras.callbacks.LambdaCallback's arguments), one per hook.
struct LambdaCallbackOptions {
  /// @name Hooks
  //@{
  /// Called from the Callback hook of the same name, with its arguments; unset does nothing.
  std::function<void(int epoch, const Logs&)> on_epoch_begin;
  std::function<void(int epoch, Logs&)> on_epoch_end;
  std::function<void(const Logs&)> on_train_begin;
  std::function<void(const Logs&)> on_train_end;
  std::function<void(int batch, const Logs&)> on_train_batch_begin;
  std::function<void(int batch, const Logs&)> on_train_batch_end;
  std::function<void(const Logs&)> on_test_begin;
  std::function<void(const Logs&)> on_test_end;
  std::function<void(int batch, const Logs&)> on_test_batch_begin;
  std::function<void(int batch, const Logs&)> on_test_batch_end;
  std::function<void(const Logs&)> on_predict_begin;
  std::function<void(const Logs&)> on_predict_end;
  std::function<void(int batch, const Logs&)> on_predict_batch_begin;
  std::function<void(int batch, const Logs&)> on_predict_batch_end;
  //@}
};

class LambdaCallback : public Callback {
 public:
  /// Takes the hook functions from fns.
  explicit LambdaCallback(LambdaCallbackOptions fns = {}) : fns_(std::move(fns)) {}

  void on_epoch_begin(int epoch, const Logs& logs) override { if (fns_.on_epoch_begin) fns_.on_epoch_begin(epoch, logs); }
  void on_epoch_end(int epoch, Logs& logs) override { if (fns_.on_epoch_end) fns_.on_epoch_end(epoch, logs); }
  void on_train_begin(const Logs& logs) override { if (fns_.on_train_begin) fns_.on_train_begin(logs); }
  void on_train_end(const Logs& logs) override { if (fns_.on_train_end) fns_.on_train_end(logs); }
  void on_train_batch_begin(int b, const Logs& logs) override { if (fns_.on_train_batch_begin) fns_.on_train_batch_begin(b, logs); }
  void on_train_batch_end(int b, const Logs& logs) override { if (fns_.on_train_batch_end) fns_.on_train_batch_end(b, logs); }
  void on_test_begin(const Logs& logs) override { if (fns_.on_test_begin) fns_.on_test_begin(logs); }
  void on_test_end(const Logs& logs) override { if (fns_.on_test_end) fns_.on_test_end(logs); }
  void on_test_batch_begin(int b, const Logs& logs) override { if (fns_.on_test_batch_begin) fns_.on_test_batch_begin(b, logs); }
  void on_test_batch_end(int b, const Logs& logs) override { if (fns_.on_test_batch_end) fns_.on_test_batch_end(b, logs); }
  void on_predict_begin(const Logs& logs) override { if (fns_.on_predict_begin) fns_.on_predict_begin(logs); }
  void on_predict_end(const Logs& logs) override { if (fns_.on_predict_end) fns_.on_predict_end(logs); }
  void on_predict_batch_begin(int b, const Logs& logs) override { if (fns_.on_predict_batch_begin) fns_.on_predict_batch_begin(b, logs); }
  void on_predict_batch_end(int b, const Logs& logs) override { if (fns_.on_predict_batch_end) fns_.on_predict_batch_end(b, logs); }

 private:
  LambdaCallbackOptions fns_;
};

}  // namespace kiln::callbacks

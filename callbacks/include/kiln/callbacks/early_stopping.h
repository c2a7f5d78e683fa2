#pragma once
// EarlyStopping: stop training when a monitored quantity stops improving
// (keras/src/callbacks/early_stopping.py, Keras 3 semantics).
//
// At each epoch end (from epoch `start_from_epoch` on), with op = `<` for min
// and `>` for max and d = -|min_delta| for min, +|min_delta| for max:
//   improvement  <=>  op(current - d, best)
//   wait += 1; on improvement: best = current, wait = 0 (only if `current` also
//   improves on `baseline` when one is given); otherwise, when
//   wait >= patience and epoch > 0: stopped_epoch = epoch, model->stop_training = true.
// mode "auto": min for "loss"/"val_loss"; max when the name (without "val_")
// contains "acc", "accuracy" or "auc"; min otherwise (Keras 3 asks the metric
// for its direction; Kiln's metrics carry none, so the name decides).
// With restore_best_weights, the weights of the best epoch are put back in
// on_train_end, whether or not training stopped early (as Keras 3 does).
//
//   kiln::callbacks::EarlyStopping es({.monitor = "loss", .patience = 3});
//   model.fit(x, y, {.epochs = 10, .callbacks = {es}});
#include <optional>
#include <string>
#include <vector>

#include "kiln/training/callback.h"
#include "kiln/core/tensor.h"

namespace kiln::callbacks {

struct EarlyStoppingOptions {
  std::string monitor = "val_loss";
  double min_delta = 0.0;
  int patience = 0;
  int verbose = 0;
  std::string mode = "auto";  // "auto", "min" or "max"
  std::optional<double> baseline;
  bool restore_best_weights = false;
  int start_from_epoch = 0;
};

class EarlyStopping : public Callback {
 public:
  explicit EarlyStopping(EarlyStoppingOptions options = {});

  void on_train_begin(const Logs& logs) override;
  void on_epoch_end(int epoch, Logs& logs) override;
  void on_train_end(const Logs& logs) override;

  /// The epoch at which training was stopped (0 if it was not).
  int stopped_epoch = 0;
  /// The epoch of the best monitored value so far.
  int best_epoch = 0;
  /// Epochs since the last improvement.
  int wait = 0;
  /// Best monitored value so far (+inf for min, -inf for max before any epoch).
  double best = 0.0;
  const EarlyStoppingOptions& options() const { return options_; }
  /// True when larger monitored values are better (resolved at the first epoch end).
  bool maximizing() const { return maximize_; }

 private:
  void set_monitor_op();
  bool is_improvement(double value, double reference) const;

  EarlyStoppingOptions options_;
  bool op_set_ = false;
  bool maximize_ = false;
  double min_delta_ = 0.0;  // signed: negative when minimizing
  std::optional<std::vector<Tensor>> best_weights_;
};

}  // namespace kiln::callbacks

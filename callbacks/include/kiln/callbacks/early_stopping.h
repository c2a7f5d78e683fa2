#pragma once
/// @class kiln::callbacks::EarlyStopping
/// EarlyStopping: stop training when a monitored quantity stops improving
/// (keras/src/callbacks/early_stopping.py, Keras 3 semantics).
///
/// At each epoch end (from epoch `start_from_epoch` on), with op = `<` for min
/// and `>` for max and d = -|min_delta| for min, +|min_delta| for max:
/// @code{.unparsed}
///   improvement  <=>  op(current - d, best)
///   wait += 1; on improvement: best = current, wait = 0 (only if `current` also
///   improves on `baseline` when one is given); otherwise, when
///   wait >= patience and epoch > 0: stopped_epoch = epoch, model->stop_training = true.
/// @endcode
/// mode "auto": min for "loss"/"val_loss"; max when the name (without "val_")
/// contains "acc", "accuracy" or "auc"; min otherwise (Keras 3 asks the metric
/// for its direction; Kiln's metrics carry none, so the name decides).
/// With restore_best_weights, the weights of the best epoch are put back in
/// on_train_end, whether or not training stopped early (as Keras 3 does).
///
/// @code{.unparsed}
///   kiln::callbacks::EarlyStopping es({.monitor = "loss", .patience = 3});
///   model.fit(x, y, {.epochs = 10, .callbacks = {es}});
/// @endcode
#include <optional>
#include <string>
#include <vector>

#include "kiln/training/callback.h"
#include "kiln/core/tensor.h"

namespace kiln::callbacks {

/// Options of EarlyStopping (keras.callbacks.EarlyStopping's arguments and defaults).
struct EarlyStoppingOptions {
  std::string monitor = "val_loss";  ///< The logs key watched.
  double min_delta = 0.0;  ///< The least change that counts as an improvement (its sign is ignored).
  int patience = 0;  ///< Epochs without improvement before training stops.
  int verbose = 0;  ///< 1: print a message when training stops or the best weights are restored.
  std::string mode = "auto";  ///< "auto" (from the monitor's name), "min" or "max".
  std::optional<double> baseline;  ///< Training stops unless the monitored value improves on this; none by default.
  bool restore_best_weights = false;  ///< At the end of training, put back the weights of the best epoch.
  int start_from_epoch = 0;  ///< Epochs to wait before watching for improvement (a warm-up).
};

class EarlyStopping : public Callback {
 public:
  /// Takes every setting from options (Keras's defaults).
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
  /// The options given at construction.
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

#pragma once
/// @class kiln::callbacks::ReduceLROnPlateau
/// ReduceLROnPlateau: divide the learning rate when a metric stops improving
/// (keras/src/callbacks/reduce_lr_on_plateau.py, Keras 3 logic).
///
/// At each epoch end, logs["learning_rate"] = optimizer learning rate (as Keras 3
/// adds it), then with current = logs[monitor]:
/// @code{.unparsed}
///   min mode (or auto when "acc" is not in the name): better <=> current < best - min_delta
///   max mode:                                           better <=> current > best + min_delta
///   in cooldown: cooldown_counter -= 1, wait = 0
///   better: best = current, wait = 0
///   else if not in cooldown: wait += 1; when wait >= patience and lr > float32(min_lr):
///     lr = max(lr * factor, min_lr); cooldown_counter = cooldown; wait = 0.
/// @endcode
///
/// @code{.unparsed}
///   kiln::callbacks::ReduceLROnPlateau r({.monitor = "val_loss", .factor = 0.2, .patience = 5, .min_lr = 0.001});
/// @endcode
#include <string>

#include "kiln/training/callback.h"

namespace kiln::callbacks {

/// Options of ReduceLROnPlateau (keras.callbacks.ReduceLROnPlateau's arguments and defaults).
struct ReduceLROnPlateauOptions {
  std::string monitor = "val_loss";  ///< The logs key watched.
  double factor = 0.1;  ///< new_lr = lr * factor; must be < 1.
  int patience = 10;  ///< Epochs without improvement before the rate is reduced.
  int verbose = 0;  ///< 1: print a message when the rate is reduced.
  std::string mode = "auto";  ///< "auto" (from the monitor's name), "min" or "max".
  double min_delta = 1e-4;  ///< The least change that counts as an improvement.
  int cooldown = 0;  ///< Epochs to wait after a reduction before counting again.
  double min_lr = 0.0;  ///< The rate is never reduced below this.
};

class ReduceLROnPlateau : public Callback {
 public:
  /// Throws ValueError when factor >= 1.
  explicit ReduceLROnPlateau(ReduceLROnPlateauOptions options = {});

  void on_train_begin(const Logs& logs) override;
  void on_epoch_end(int epoch, Logs& logs) override;
  /// True while cooldown_counter > 0.
  bool in_cooldown() const { return cooldown_counter > 0; }

  /// Epochs since the last improvement.
  int wait = 0;
  /// Epochs of cooldown left.
  int cooldown_counter = 0;
  /// Best monitored value so far (+inf for min, -inf for max before any epoch).
  double best = 0.0;
  /// The options given at construction.
  const ReduceLROnPlateauOptions& options() const { return options_; }

 private:
  void reset();
  bool better(double a, double b) const;
  ReduceLROnPlateauOptions options_;
  bool maximize_ = false;
};

}  // namespace kiln::callbacks

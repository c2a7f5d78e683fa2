#pragma once
// ReduceLROnPlateau: divide the learning rate when a metric stops improving
// (keras/src/callbacks/reduce_lr_on_plateau.py, Keras 3 logic).
//
// At each epoch end, logs["learning_rate"] = optimizer learning rate (as Keras 3
// adds it), then with current = logs[monitor]:
//   min mode (or auto when "acc" is not in the name): better <=> current < best - min_delta
//   max mode:                                           better <=> current > best + min_delta
//   in cooldown: cooldown_counter -= 1, wait = 0
//   better: best = current, wait = 0
//   else if not in cooldown: wait += 1; when wait >= patience and lr > float32(min_lr):
//     lr = max(lr * factor, min_lr); cooldown_counter = cooldown; wait = 0.
//
//   kiln::callbacks::ReduceLROnPlateau r({.monitor = "val_loss", .factor = 0.2, .patience = 5, .min_lr = 0.001});
#include <string>

#include "kiln/training/callback.h"

namespace kiln::callbacks {

struct ReduceLROnPlateauOptions {
  std::string monitor = "val_loss";
  double factor = 0.1;   // new_lr = lr * factor; must be < 1
  int patience = 10;
  int verbose = 0;
  std::string mode = "auto";  // "auto", "min" or "max"
  double min_delta = 1e-4;
  int cooldown = 0;
  double min_lr = 0.0;
};

class ReduceLROnPlateau : public Callback {
 public:
  /// Throws ValueError when factor >= 1.
  explicit ReduceLROnPlateau(ReduceLROnPlateauOptions options = {});

  void on_train_begin(const Logs& logs) override;
  void on_epoch_end(int epoch, Logs& logs) override;
  bool in_cooldown() const { return cooldown_counter > 0; }

  int wait = 0;
  int cooldown_counter = 0;
  double best = 0.0;
  const ReduceLROnPlateauOptions& options() const { return options_; }

 private:
  void reset();
  bool better(double a, double b) const;
  ReduceLROnPlateauOptions options_;
  bool maximize_ = false;
};

}  // namespace kiln::callbacks

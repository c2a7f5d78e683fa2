#include "kiln/callbacks/reduce_lr_on_plateau.h"

#include <algorithm>
#include <iostream>
#include <limits>

#include "callback_utils.h"
#include "kiln/core/error.h"
#include "kiln/training/model.h"

namespace kiln::callbacks {

ReduceLROnPlateau::ReduceLROnPlateau(ReduceLROnPlateauOptions options) : options_(std::move(options)) {
  if (options_.factor >= 1.0)
    throw ValueError("ReduceLROnPlateau does not support a factor >= 1.0. Received factor=" +
                     detail::python_float_repr(options_.factor));
  reset();
}

void ReduceLROnPlateau::reset() {
  if (options_.mode != "auto" && options_.mode != "min" && options_.mode != "max") {
    std::cerr << "WARNING: Learning rate reduction mode " << options_.mode << " is unknown, fallback to auto mode.\n";
    options_.mode = "auto";
  }
  // Keras checks only for "acc" here (not "auc"), unlike EarlyStopping.
  maximize_ = !(options_.mode == "min" || (options_.mode == "auto" && options_.monitor.find("acc") == std::string::npos));
  best = maximize_ ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  cooldown_counter = 0;
  wait = 0;
}

bool ReduceLROnPlateau::better(double a, double b) const {
  return maximize_ ? a > b + options_.min_delta : a < b - options_.min_delta;
}

void ReduceLROnPlateau::on_train_begin(const Logs&) { reset(); }

void ReduceLROnPlateau::on_epoch_end(int epoch, Logs& logs) {
  Optimizer& opt = detail::require_optimizer(model_, "ReduceLROnPlateau");
  logs.set("learning_rate", opt.learning_rate());
  auto current = logs.get(options_.monitor);
  if (!current) {
    std::string keys;
    for (const auto& [k, v] : logs) keys += (keys.empty() ? "" : ",") + k;
    std::cerr << "WARNING: Learning rate reduction is conditioned on metric `" << options_.monitor
              << "` which is not available. Available metrics are: " << keys << ".\n";
    return;
  }
  if (in_cooldown()) {
    --cooldown_counter;
    wait = 0;
  }
  if (better(*current, best)) {
    best = *current;
    wait = 0;
  } else if (!in_cooldown()) {
    ++wait;
    if (wait >= options_.patience) {
      const double old_lr = opt.learning_rate();
      // Keras compares against np.float32(min_lr).
      if (old_lr > static_cast<double>(static_cast<float>(options_.min_lr))) {
        const double new_lr = std::max(old_lr * options_.factor, options_.min_lr);
        opt.set_learning_rate(new_lr);
        if (options_.verbose > 0)
          std::cout << "\nEpoch " << epoch + 1 << ": ReduceLROnPlateau reducing learning rate to "
                    << detail::python_float_repr(new_lr) << ".\n";
        cooldown_counter = options_.cooldown;
        wait = 0;
      }
    }
  }
}

}  // namespace kiln::callbacks

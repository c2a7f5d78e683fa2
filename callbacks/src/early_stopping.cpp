#include "kiln/callbacks/early_stopping.h"

#include <cmath>
#include <iostream>
#include <limits>

#include "kiln/core/error.h"
#include "kiln/training/model.h"

namespace kiln::callbacks {

namespace {
bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }
}  // namespace

EarlyStopping::EarlyStopping(EarlyStoppingOptions options) : options_(std::move(options)) {
  if (options_.mode != "auto" && options_.mode != "min" && options_.mode != "max") {
    // Keras warns and falls back to auto.
    std::cerr << "WARNING: EarlyStopping mode " << options_.mode << " is unknown, fallback to auto mode.\n";
    options_.mode = "auto";
  }
  min_delta_ = std::abs(options_.min_delta);
}

void EarlyStopping::set_monitor_op() {
  if (options_.mode == "min") {
    maximize_ = false;
  } else if (options_.mode == "max") {
    maximize_ = true;
  } else {
    std::string name = options_.monitor;
    if (name.rfind("val_", 0) == 0) name = name.substr(4);
    maximize_ = name != "loss" && (contains(name, "acc") || contains(name, "auc"));
  }
  if (!maximize_) min_delta_ = -min_delta_;
  best = maximize_ ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  op_set_ = true;
}

bool EarlyStopping::is_improvement(double value, double reference) const {
  return maximize_ ? (value - min_delta_ > reference) : (value - min_delta_ < reference);
}

void EarlyStopping::on_train_begin(const Logs&) {
  // Allow instances to be re-used (Keras resets these, but keeps `best`).
  wait = 0;
  stopped_epoch = 0;
  best_weights_.reset();
  best_epoch = 0;
}

void EarlyStopping::on_epoch_end(int epoch, Logs& logs) {
  if (!model_) throw ValueError("EarlyStopping: no model is set (pass the callback to fit() or call set_model())");
  if (!op_set_) set_monitor_op();
  auto current = logs.get(options_.monitor);
  if (!current) {
    std::string keys;
    for (const auto& [k, v] : logs) keys += (keys.empty() ? "" : ",") + k;
    std::cerr << "WARNING: Early stopping conditioned on metric `" << options_.monitor
              << "` which is not available. Available metrics are: " << keys << "\n";
    return;
  }
  if (epoch < options_.start_from_epoch) return;
  if (options_.restore_best_weights && !best_weights_) {
    // If best weights were never set, the current weights are the best.
    best_weights_ = model_->get_weights();
    best_epoch = epoch;
  }
  ++wait;
  if (is_improvement(*current, best)) {
    best = *current;
    best_epoch = epoch;
    if (options_.restore_best_weights) best_weights_ = model_->get_weights();
    // Only restart wait if we beat both the baseline and our previous best.
    if (!options_.baseline || is_improvement(*current, *options_.baseline)) wait = 0;
    return;
  }
  if (wait >= options_.patience && epoch > 0) {
    stopped_epoch = epoch;
    model_->stop_training = true;
  }
}

void EarlyStopping::on_train_end(const Logs&) {
  if (stopped_epoch > 0 && options_.verbose > 0) std::cout << "Epoch " << stopped_epoch + 1 << ": early stopping\n";
  if (options_.restore_best_weights && best_weights_) {
    if (options_.verbose > 0)
      std::cout << "Restoring model weights from the end of the best epoch: " << best_epoch + 1 << ".\n";
    model_->set_weights(*best_weights_);
  }
}

}  // namespace kiln::callbacks

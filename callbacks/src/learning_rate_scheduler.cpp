#include "kiln/callbacks/learning_rate_scheduler.h"

#include <cmath>
#include <iostream>

#include "callback_utils.h"
#include "kiln/core/error.h"
#include "kiln/training/model.h"

namespace kiln::callbacks {

LearningRateScheduler::LearningRateScheduler(Schedule schedule, int verbose)
    : schedule_(std::move(schedule)), verbose_(verbose) {
  if (!schedule_) throw ValueError("LearningRateScheduler: the schedule function is empty");
}

LearningRateScheduler::LearningRateScheduler(std::function<double(int)> schedule, int verbose) : verbose_(verbose) {
  if (!schedule) throw ValueError("LearningRateScheduler: the schedule function is empty");
  schedule_ = [f = std::move(schedule)](int epoch, double) { return f(epoch); };
}

void LearningRateScheduler::on_epoch_begin(int epoch, const Logs&) {
  Optimizer& opt = detail::require_optimizer(model_, "LearningRateScheduler");
  const double lr = schedule_(epoch, opt.learning_rate());
  if (!std::isfinite(lr))
    throw ValueError("LearningRateScheduler: the schedule returned " + detail::python_float_repr(lr) +
                     " at epoch " + std::to_string(epoch) + "; it must return a finite float");
  opt.set_learning_rate(lr);
  if (verbose_ > 0)
    std::cout << "\nEpoch " << epoch + 1 << ": LearningRateScheduler setting learning rate to "
              << detail::python_float_repr(lr) << ".\n";
}

void LearningRateScheduler::on_epoch_end(int, Logs& logs) {
  logs.set("learning_rate", detail::require_optimizer(model_, "LearningRateScheduler").learning_rate());
}

}  // namespace kiln::callbacks

#pragma once
/// @class kiln::callbacks::LearningRateScheduler
/// LearningRateScheduler: at the start of every epoch, lr = schedule(epoch, lr)
/// and optimizer.set_learning_rate(lr); at its end logs["learning_rate"] = lr
/// (keras/src/callbacks/learning_rate_scheduler.py). `epoch` counts from 0.
///
/// @code{.unparsed}
///   // Keep the rate for 10 epochs, then decay it exponentially.
///   kiln::callbacks::LearningRateScheduler s([](int epoch, double lr) {
///     return epoch < 10 ? lr : lr * std::exp(-0.1);
///   });
///   // Keras's old one-argument API works too: LearningRateScheduler([](int epoch) { return 0.01; });
/// @endcode
#include <functional>

#include "kiln/training/callback.h"

namespace kiln::callbacks {

class LearningRateScheduler : public Callback {
 public:
  /// (epoch, current learning rate) -> new learning rate.
  using Schedule = std::function<double(int epoch, double lr)>;
  /// schedule gives each epoch's rate; verbose = 1 prints it. Throws ValueError for an empty
  /// schedule; on_epoch_begin throws ValueError when it returns a non-finite rate.
  explicit LearningRateScheduler(Schedule schedule, int verbose = 0);
  /// Keras's one-argument form: schedule(epoch) -> learning rate.
  explicit LearningRateScheduler(std::function<double(int epoch)> schedule, int verbose = 0);

  void on_epoch_begin(int epoch, const Logs& logs) override;
  void on_epoch_end(int epoch, Logs& logs) override;

 private:
  Schedule schedule_;
  int verbose_ = 0;
};

}  // namespace kiln::callbacks

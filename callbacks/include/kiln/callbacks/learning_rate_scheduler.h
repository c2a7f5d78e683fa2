#pragma once
// LearningRateScheduler: at the start of every epoch, lr = schedule(epoch, lr)
// and optimizer.set_learning_rate(lr); at its end logs["learning_rate"] = lr
// (keras/src/callbacks/learning_rate_scheduler.py). `epoch` counts from 0.
//
//   // Keep the rate for 10 epochs, then decay it exponentially.
//   kiln::callbacks::LearningRateScheduler s([](int epoch, double lr) {
//     return epoch < 10 ? lr : lr * std::exp(-0.1);
//   });
//   // Keras's old one-argument API works too: LearningRateScheduler([](int epoch) { return 0.01; });
#include <functional>

#include "kiln/training/callback.h"

namespace kiln::callbacks {

class LearningRateScheduler : public Callback {
 public:
  using Schedule = std::function<double(int epoch, double lr)>;
  explicit LearningRateScheduler(Schedule schedule, int verbose = 0);
  explicit LearningRateScheduler(std::function<double(int epoch)> schedule, int verbose = 0);

  void on_epoch_begin(int epoch, const Logs& logs) override;
  void on_epoch_end(int epoch, Logs& logs) override;

 private:
  Schedule schedule_;
  int verbose_ = 0;
};

}  // namespace kiln::callbacks

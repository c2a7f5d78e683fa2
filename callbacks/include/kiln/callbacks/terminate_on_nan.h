#pragma once
/// @class kiln::callbacks::TerminateOnNaN
/// TerminateOnNaN: sets model->stop_training at the first training batch whose
/// logged "loss" is NaN or infinite, and prints
/// `"Batch <i>: Invalid loss, terminating training"` (keras/src/callbacks/terminate_on_nan.py).
///
/// @code{.unparsed}
///   model.fit(x, y, {.epochs = 5, .callbacks = {kiln::callbacks::TerminateOnNaN()}});
/// @endcode
#include <optional>

#include "kiln/training/callback.h"

namespace kiln::callbacks {

class TerminateOnNaN : public Callback {
 public:
  void on_train_begin(const Logs&) override { terminated_batch.reset(); }
  void on_train_batch_end(int batch, const Logs& logs) override;
  /// The first batch (index within its epoch) of this training run that had an invalid loss.
  std::optional<int> terminated_batch;
};

}  // namespace kiln::callbacks

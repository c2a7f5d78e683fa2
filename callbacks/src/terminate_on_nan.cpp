#include "kiln/callbacks/terminate_on_nan.h"

#include <cmath>
#include <iostream>

#include "kiln/core/error.h"
#include "kiln/training/model.h"

namespace kiln::callbacks {

void TerminateOnNaN::on_train_batch_end(int batch, const Logs& logs) {
  auto loss = logs.get("loss");
  if (loss && (std::isnan(*loss) || std::isinf(*loss))) {
    if (!model_) throw ValueError("TerminateOnNaN: no model is set (pass the callback to fit() or call set_model())");
    model_->stop_training = true;
    // Keras's fit breaks out of the epoch right here; print once even if a loop carries on.
    if (!terminated_batch) {
      std::cout << "Batch " << batch << ": Invalid loss, terminating training\n";
      terminated_batch = batch;
    }
  }
}

}  // namespace kiln::callbacks

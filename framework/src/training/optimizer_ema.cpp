// The optimizer's exponential moving average of the weights (Keras's use_ema):
// writing the averages into the model, and swapping them with its weights.
#include "kiln/training/optimizer.h"

#include "autodiff/autodiff.h"
#include "kiln/core/error.h"

namespace kiln {

void Optimizer::finalize_variable_values(const std::vector<Variable>& vars) {
  if (!options_.use_ema) return;
  if (vars.size() != ema_.size())
    throw ValueError("Optimizer '" + name_ + "': the length of model variables (" + std::to_string(vars.size()) +
                     ") to override does not match the length of model variables stored in the optimizer (" +
                     std::to_string(ema_.size()) + "). Please check if the optimizer was called on your model.");
  autodiff::Pause pause;
  for (std::size_t i = 0; i < vars.size(); ++i) {
    Variable v = vars[i];
    v.assign(ema_[i].read_value_untracked());
  }
}

void Optimizer::swap_ema_weights(const std::vector<Variable>& vars) {
  if (!options_.use_ema)
    throw ValueError("Optimizer '" + name_ +
                     "': swapping EMA weights requires `use_ema=true` on the optimizer (SwapEMAWeights).");
  if (vars.size() != ema_.size())
    throw ValueError("Optimizer '" + name_ + "': cannot swap " + std::to_string(vars.size()) +
                     " variables with the " + std::to_string(ema_.size()) + " moving averages it tracks");
  autodiff::Pause pause;
  for (std::size_t i = 0; i < vars.size(); ++i) {
    Variable v = vars[i];
    Tensor tmp = v.read_value_untracked().clone();  // assign writes in place: copy first
    v.assign(ema_[i].read_value_untracked());
    ema_[i].assign(tmp);
  }
}

}  // namespace kiln

// RNN's call keywords: initial_state=[h, c] as Keras passes it.
#include "kiln/core/error.h"
#include "kiln/layers/rnn.h"

namespace kiln::layers {

std::vector<Tensor> RNNImpl::call_kwargs(const std::vector<Tensor>& xs, const CallKwargs& kwargs, const Tensor& mask,
                                         bool training) {
  CallKwargs rest = kwargs;
  rest.erase("initial_state");
  if (!rest.empty()) return Layer::call_kwargs(xs, rest, mask, training);
  const CallArg& s = *kwargs.find("initial_state");
  std::vector<Tensor> inputs = xs;
  if (s.is_tensor()) {
    if (xs.size() != 1)
      throw ValueError("Layer '" + name() + "' (" + class_name() + ") received initial states both in its input list (" +
                       std::to_string(xs.size() - 1) + ") and as the initial_state keyword");
    inputs.insert(inputs.end(), s.tensors.begin(), s.tensors.end());
  } else if (s.json != "null") {
    throw ValueError("Layer '" + name() + "' (" + class_name() + "): initial_state must be a tensor or a list of "
                     "tensors, but received " + s.json.substr(0, 120));
  }
  return mask.defined() ? call_masked(inputs, mask, training) : call(inputs, training);
}

}  // namespace kiln::layers

// The initial_state call keyword, as Keras passes it: lstm(x, initial_state=[h, c]).
#include "kiln/core/error.h"
#include "kiln/layers/rnn.h"
#include "layer_utils.h"

namespace kiln::layers {

std::vector<Tensor> detail::with_initial_state(const Layer& layer, const std::vector<Tensor>& xs, const CallArg& state) {
  std::vector<Tensor> inputs = xs;
  if (state.is_tensor()) {
    if (xs.size() != 1)
      throw ValueError("Layer '" + layer.name() + "' (" + layer.class_name() + ") received initial states both in its "
                       "input list (" + std::to_string(xs.size() - 1) + ") and as the initial_state keyword");
    inputs.insert(inputs.end(), state.tensors.begin(), state.tensors.end());
  } else if (state.json != "null") {
    throw ValueError("Layer '" + layer.name() + "' (" + layer.class_name() + "): initial_state must be a tensor or a "
                     "list of tensors, but received " + state.json.substr(0, 120));
  }
  return inputs;
}

std::vector<Tensor> RNNImpl::call_kwargs(const std::vector<Tensor>& xs, const CallKwargs& kwargs, const Tensor& mask,
                                         bool training) {
  CallKwargs rest = kwargs;
  rest.erase("initial_state");
  if (!rest.empty()) return Layer::call_kwargs(xs, rest, mask, training);
  const std::vector<Tensor> inputs = detail::with_initial_state(*this, xs, *kwargs.find("initial_state"));
  return mask.defined() ? call_masked(inputs, mask, training) : call(inputs, training);
}

}  // namespace kiln::layers

#pragma once
// What Keras's Layer.__call__ does with dtypes before call(): float inputs are
// cast to the layer's compute dtype, and an autocast scope makes float weights
// read in it.
#include <optional>
#include <vector>

#include "kiln/autodiff/variable.h"
#include "kiln/nn/layer.h"

namespace kiln::detail {

/// `xs` with each float tensor cast to `layer`'s compute dtype, when the layer
/// converts its inputs and computes in a float dtype (Keras's convert_input).
std::vector<Tensor> convert_inputs(const Layer& layer, const std::vector<Tensor>& xs);

/// For the duration of a call: the autocast scope Keras's Layer.__call__ opens.
/// Inside another layer's scope, this layer's compute dtype replaces it (none
/// for an integer compute dtype); outside any, only a mixed policy opens one.
class LayerAutocast {
 public:
  explicit LayerAutocast(const Layer& layer);

 private:
  std::optional<AutocastScope> scope_;
};

}  // namespace kiln::detail

#include "nn/layer_autocast.h"

namespace kiln::detail {

std::vector<Tensor> convert_inputs(const Layer& layer, const std::vector<Tensor>& xs) {
  const DType to = layer.compute_dtype();
  if (!layer.converts_inputs() || !layer.autocast() || !is_floating(to)) return xs;
  std::vector<Tensor> out = xs;
  for (Tensor& x : out)
    if (x.defined() && is_floating(x.dtype()) && x.dtype() != to) x = x.cast(to);
  return out;
}

LayerAutocast::LayerAutocast(const Layer& layer) {
  const DType compute = layer.compute_dtype();
  if (AutocastScope::current()) {
    if (!layer.autocast() || !is_floating(compute)) scope_.emplace(std::nullopt);
    else if (*AutocastScope::current() != compute) scope_.emplace(compute);
  } else if (compute != layer.dtype()) {
    scope_.emplace(compute);
  }
}

}  // namespace kiln::detail

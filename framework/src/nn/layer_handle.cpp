// The calls every layer handle shares (kiln/nn/layer.h): compiled here once
// rather than once per layer class in every program.
#include "kiln/nn/layer_class.h"

namespace kiln {

LayerPtr detail::named_layer(Layer* created) {
  LayerPtr p(created);
  p->name();
  return p;
}

Tensor LayerHandleBase::operator()(const Tensor& x, std::optional<bool> training) const { return (*layer_)(x, training); }

Tensor LayerHandleBase::operator()(const std::vector<Tensor>& xs, std::optional<bool> training) const {
  return (*layer_)(xs, training).at(0);
}

std::vector<Tensor> LayerHandleBase::call_multi(const std::vector<Tensor>& xs, std::optional<bool> training) const {
  return (*layer_)(xs, training);
}

Tensor LayerHandleBase::operator()(const Tensor& x, const CallOptions& options) const {
  return (*layer_)(x, options);
}

Tensor LayerHandleBase::operator()(const std::vector<Tensor>& xs, const CallOptions& options) const {
  return (*layer_)(xs, options).at(0);
}

std::vector<Tensor> LayerHandleBase::call_multi(const std::vector<Tensor>& xs, const CallOptions& options) const {
  return layer_->call_with_kwargs(xs, xs.size() > 1, options.to_kwargs());
}

}  // namespace kiln

// The calls every layer handle shares (kiln/nn/layer.h): compiled here once
// rather than once per layer class in every program.
#include "kiln/nn/layer_class.h"

#include <string>

#include "kiln/core/error.h"

namespace kiln {

namespace {
// A handle's single-tensor result: a layer that returned several outputs is an
// error, not its first output, since the others would be dropped unseen.
Tensor only_output(const Layer& layer, std::vector<Tensor> outputs) {
  if (outputs.size() != 1)
    throw ValueError("Layer '" + layer.name() + "' returned " + std::to_string(outputs.size()) +
                     " outputs, and this call returns one tensor; call_multi() returns them all, e.g. "
                     "auto [a, b] = kiln::unpack<2>(layer.call_multi({x}))");
  return std::move(outputs[0]);
}
}  // namespace

LayerPtr detail::named_layer(Layer* created) {
  LayerPtr p(created);
  p->name();
  return p;
}

Tensor LayerHandleBase::operator()(const Tensor& x, std::optional<bool> training) const { return (*layer_)(x, training); }

Tensor LayerHandleBase::operator()(const std::vector<Tensor>& xs, std::optional<bool> training) const {
  return only_output(*layer_, (*layer_)(xs, training));
}

std::vector<Tensor> LayerHandleBase::call_multi(const std::vector<Tensor>& xs, std::optional<bool> training) const {
  return (*layer_)(xs, training);
}

Tensor LayerHandleBase::operator()(const Tensor& x, const CallOptions& options) const {
  return (*layer_)(x, options);
}

Tensor LayerHandleBase::operator()(const std::vector<Tensor>& xs, const CallOptions& options) const {
  return only_output(*layer_, (*layer_)(xs, options));
}

std::vector<Tensor> LayerHandleBase::call_multi(const std::vector<Tensor>& xs, const CallOptions& options) const {
  return layer_->call_with_kwargs(xs, xs.size() > 1, options.to_kwargs());
}

void throw_unpack_count(std::size_t want, std::size_t got) {
  throw ValueError("unpack<" + std::to_string(want) + ">: expected " + std::to_string(want) +
                   " outputs, but the call returned " + std::to_string(got));
}

}  // namespace kiln

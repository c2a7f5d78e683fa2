// Layer's side of masking (Keras 3's Layer.__call__ steps 6 and 7): the mask
// attached to the first input goes to call_masked(), and a layer that supports
// masking attaches compute_mask()'s result to its first output; any other
// layer drops the mask with Keras's warning. Also the attribute names under
// which Keras saves sublayers that are not in a "layers" list.
#include <iostream>

#include "kiln/nn/layer.h"
#include "kiln/nn/masking.h"

namespace kiln {

Tensor Layer::compute_mask(const Tensor&, const Tensor& previous_mask) { return previous_mask; }

Tensor Layer::call_masked(const Tensor& x, const Tensor&, bool training) { return call(x, training); }

std::vector<Tensor> Layer::call_masked(const std::vector<Tensor>& xs, const Tensor&, bool training) {
  return call(xs, training);
}

void Layer::attach_output_mask(const Tensor& x, const std::vector<Tensor>& ys, const Tensor& mask) {
  if (!supports_masking_) {
    // Python warns once per call site; once per layer keeps a fit loop quiet.
    if (mask.defined() && !warned_mask_dropped_) {
      warned_mask_dropped_ = true;
      std::cerr << "WARNING: Layer '" << name() << "' (of type " << class_name()
                << ") was passed an input with a mask attached to it. However, this layer does not support masking "
                   "and will therefore destroy the mask information. Downstream layers will not see the mask.\n";
    }
    return;
  }
  if (ys.empty() || !ys[0].defined() || get_keras_mask(ys[0]).defined()) return;  // computed in call()
  Tensor out = compute_mask(x, mask);
  if (out.defined()) set_keras_mask(ys[0], out);
}

Tensor Layer::compute_list_mask(const std::vector<Tensor>& xs, const std::vector<Tensor>& masks) {
  return compute_mask(xs.at(0), masks.empty() ? Tensor() : masks[0]);
}

void Layer::attach_output_mask(const std::vector<Tensor>& xs, const std::vector<Tensor>& ys, const Tensor& mask) {
  if (xs.size() == 1) return attach_output_mask(xs[0], ys, mask);
  std::vector<Tensor> masks{mask};
  Tensor any_mask = mask;
  for (std::size_t i = 1; i < xs.size(); ++i) {
    masks.push_back(get_keras_mask(xs[i]));
    if (!any_mask.defined()) any_mask = masks.back();
  }
  // The single-input path warns that an unsupported layer drops the mask.
  if (!supports_masking_) return attach_output_mask(xs[0], ys, any_mask);
  if (ys.empty() || !ys[0].defined() || get_keras_mask(ys[0]).defined()) return;  // computed in call()
  Tensor out = compute_list_mask(xs, masks);
  if (out.defined()) set_keras_mask(ys[0], out);
}

void Layer::track_layer(std::shared_ptr<Layer> layer, const std::string& attribute) {
  const Layer* raw = layer.get();
  track_layer(std::move(layer));
  sublayer_attributes_[raw] = attribute;
}

std::string Layer::sublayer_attribute(const Layer& sublayer) const {
  auto it = sublayer_attributes_.find(&sublayer);
  return it == sublayer_attributes_.end() ? std::string() : it->second;
}

}  // namespace kiln

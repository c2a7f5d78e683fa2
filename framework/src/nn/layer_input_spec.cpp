// Layer's input-spec check: the shapes a layer accepts, with Keras's message.
#include <string>

#include "kiln/core/error.h"
#include "kiln/nn/layer.h"

namespace kiln {

void Layer::check_input_spec(const std::vector<Tensor>& xs) const {
  for (std::size_t i = 0; i < input_spec_.size() && i < xs.size(); ++i) {
    const InputSpec& spec = input_spec_[i];
    const Shape& s = xs[i].shape();
    auto fail = [&](const std::string& what) {
      throw ShapeError("Input " + std::to_string(i) + " of layer '" + name() + "' is incompatible with the layer: " +
                       what + ", but received input with shape " + s.to_string());
    };
    if (spec.ndim && s.rank() != *spec.ndim)
      fail("expected ndim=" + std::to_string(*spec.ndim) + ", found ndim=" + std::to_string(s.rank()));
    if (spec.min_ndim && s.rank() < *spec.min_ndim)
      fail("expected min_ndim=" + std::to_string(*spec.min_ndim) + ", found ndim=" + std::to_string(s.rank()));
    if (spec.max_ndim && s.rank() > *spec.max_ndim)
      fail("expected max_ndim=" + std::to_string(*spec.max_ndim) + ", found ndim=" + std::to_string(s.rank()));
    for (const auto& [axis, size] : spec.axes) {
      int64_t a = axis < 0 ? axis + s.rank() : axis;
      if (a < 0 || a >= s.rank()) continue;
      if (s.dims()[a] >= 0 && s.dims()[a] != size)
        fail("expected axis " + std::to_string(axis) + " of input shape to have value " + std::to_string(size));
    }
  }
}

}  // namespace kiln

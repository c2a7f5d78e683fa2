// UpSampling1D: each step broadcast along a new axis, then folded into the time axis.
#include "kiln/layers/up_sampling1d.h"

#include "config_fields.h"
#include "kiln/ops/array_ops.h"

namespace kiln::layers {

using namespace detail;

UpSampling1DImpl::UpSampling1DImpl(int64_t size, UpSampling1DOptions o)
    : Layer(base_options(o)), size_(size), o_(std::move(o)) {
  if (size_ <= 0)
    throw ValueError("UpSampling1D: `size` must be a positive integer, got " + std::to_string(size_));
  apply_input_shape(*this, o_);
  set_input_spec({InputSpec{.ndim = 3}});
}

Tensor UpSampling1DImpl::call(const Tensor& input, bool) {
  Tensor x = cast_input(input, compute_dtype());
  const Shape& s = x.shape();
  // (b, steps, f) -> (b, steps, size, f) -> (b, steps * size, f): each step repeated in place.
  Tensor repeated = broadcast_to(expand_dims(x, 2), {s[0], s[1], size_, s[2]});
  return reshape(repeated, {s[0], s[1] * size_, s[2]});
}

Shape UpSampling1DImpl::compute_output_shape(const Shape& s) {
  if (s.rank() != 3)
    throw ShapeError("Layer '" + name() + "' (UpSampling1D) expects inputs of rank 3, but received input with shape " +
                     s.to_string());
  return {s[0], s[1] < 0 ? None : s[1] * size_, s[2]};
}

Config UpSampling1DImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(UpSampling1DImpl, "UpSampling1D")

}  // namespace kiln::layers

// Masking: the mask is any(x != mask_value) over the feature axis.
#include "kiln/layers/masking.h"

#include "kiln/nn/masking.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "config_fields.h"

namespace kiln::layers {

using namespace detail;

namespace {
/// any(x != value, axis=-1): a step is kept when one feature differs.
Tensor keep_steps(const Tensor& x, double value, bool keepdims) {
  Tensor differs = cast(not_equal(x, scalar_like(value, x)), DType::float32);
  return greater(max(differs, Axes{-1}, keepdims), zeros({}, DType::float32));
}
}  // namespace

MaskingImpl::MaskingImpl(MaskingOptions o) : Layer(base_options(o)), o_(std::move(o)) {
  apply_input_shape(*this, o_);
  set_supports_masking(true);
}

Tensor MaskingImpl::compute_mask(const Tensor& x, const Tensor&) { return keep_steps(x, o_.mask_value, false); }

Tensor MaskingImpl::call(const Tensor& x, bool) {
  Tensor keep = keep_steps(x, o_.mask_value, true);
  Tensor out = where(keep, x, zeros_like(x));
  set_keras_mask(out, squeeze(keep, {-1}));
  return out;
}

Config MaskingImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(MaskingImpl, "Masking")

}  // namespace kiln::layers

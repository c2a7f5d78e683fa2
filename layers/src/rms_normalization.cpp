// RMSNormalization and UnitNormalization (Keras 3's ops.rms_normalization and ops.normalize(order=2)).
#include "kiln/layers/rms_normalization.h"

#include <algorithm>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "config_fields.h"

namespace kiln::layers {

using namespace detail;

namespace {
std::vector<int> sorted_axes(const std::string& who, const Axes& a, const Shape& s) {
  if (!a.axes || a.axes->empty()) throw ValueError(who + ": `axis` must be an integer or a non-empty list of integers");
  std::vector<int> out;
  for (int ax : *a.axes) {
    const int n = ax < 0 ? ax + static_cast<int>(s.rank()) : ax;
    if (n < 0 || n >= s.rank())
      throw ValueError(who + ": axis " + std::to_string(ax) + " is out of bounds for input shape " + s.to_string());
    out.push_back(n);
  }
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace

// ---- RMSNormalization ----
RMSNormalizationImpl::RMSNormalizationImpl(RMSNormalizationOptions o) : Layer(base_options(o)), o_(std::move(o)) {
  apply_input_shape(*this, o_);
}

void RMSNormalizationImpl::build(const Shape& s) {
  axes_ = sorted_axes("Layer '" + name() + "' (RMSNormalization)", o_.axis, s);
  Shape param;
  broadcast_shape_ = Shape(std::vector<int64_t>(s.rank(), 1));
  for (int a : axes_) {
    param.push_back(s[a]);
    broadcast_shape_[a] = s[a];
  }
  scale_ = add_weight("scale", param, {.initializer = "ones"});
}

Tensor RMSNormalizationImpl::call(const Tensor& input, bool) {
  Tensor x = cast_to_compute(input, compute_dtype());
  if (const auto groups = trailing_norm_groups(x.shape(), axes_, false))
    if (auto y = ops::normalize_groups(x, scale_.value(), Tensor(), *groups, o_.epsilon)) return *y;
  Tensor rrms = rsqrt(mean(square(x), axes_, true) + o_.epsilon);
  return x * rrms * reshape(scale_.value(), broadcast_shape_);
}

Config RMSNormalizationImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(RMSNormalizationImpl, "RMSNormalization")

// ---- UnitNormalization ----
UnitNormalizationImpl::UnitNormalizationImpl(UnitNormalizationOptions o) : Layer(base_options(o)), o_(std::move(o)) {
  apply_input_shape(*this, o_);
}

Tensor UnitNormalizationImpl::call(const Tensor& input, bool) {
  Tensor x = cast_to_compute(input, compute_dtype());
  const std::vector<int> axes = sorted_axes("Layer '" + name() + "' (UnitNormalization)", o_.axis, x.shape());
  // Keras's epsilon 1e-12 bounds the inverse norm, so a zero vector maps to zero.
  Tensor inv_norm = minimum(rsqrt(sum(square(x), axes, true)), scalar_like(1e12, x));
  return x * inv_norm;
}

Config UnitNormalizationImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(UnitNormalizationImpl, "UnitNormalization")

}  // namespace kiln::layers

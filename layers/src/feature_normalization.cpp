// Normalization: (x - mean) / max(sqrt(variance), epsilon) with given or adapted statistics.
#include "kiln/layers/feature_normalization.h"

#include <algorithm>
#include <cmath>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "config_fields.h"

namespace kiln::layers {

using namespace detail;

namespace {
constexpr double kEpsilon = 1e-7;  // Keras's backend.epsilon()
}

NormalizationImpl::NormalizationImpl(NormalizationOptions o) : Layer(base_options(o)), o_(std::move(o)) {
  if (o_.mean.has_value() != o_.variance.has_value())
    throw ValueError("Normalization: when setting values directly, both `mean` and `variance` must be set. Received: mean=" +
                     std::string(o_.mean ? "[...]" : "None") + " and variance=" + (o_.variance ? "[...]" : "None"));
  apply_input_shape(*this, o_);
}

void NormalizationImpl::build(const Shape& s) {
  const int ndim = static_cast<int>(s.rank());
  keep_.clear();
  reduce_.clear();
  for (int a : o_.axis.axes.value_or(std::vector<int>{})) {
    if (a < -ndim || a >= ndim)
      throw ValueError("Layer '" + name() + "' (Normalization): all `axis` values must be in the range [-ndim, ndim). Received inputs with ndim=" +
                       std::to_string(ndim) + ", while axis=" + std::to_string(a));
    const int n = a < 0 ? a + ndim : a;
    if (s[n] < 0)
      throw ValueError("Layer '" + name() + "' (Normalization): all `axis` values to be kept must have a known shape. Received inputs.shape=" +
                       s.to_string() + ", with unknown axis at index " + std::to_string(n));
    keep_.push_back(n);
  }
  std::sort(keep_.begin(), keep_.end());
  Shape stat_shape;
  broadcast_shape_ = Shape(std::vector<int64_t>(ndim, 1));
  for (int d = 0; d < ndim; ++d) {
    if (std::find(keep_.begin(), keep_.end(), d) == keep_.end()) {
      reduce_.push_back(d);
    } else {
      broadcast_shape_[d] = s[d];
      stat_shape.push_back(s[d]);
    }
  }
  if (!o_.mean) {
    mean_ = add_weight("mean", stat_shape, {.initializer = "zeros", .trainable = false});
    variance_ = add_weight("variance", stat_shape, {.initializer = "ones", .trainable = false});
    count_ = add_weight("count", {}, {.initializer = "zeros", .trainable = false, .dtype = DType::int32});
  }
}

// A given statistic: a scalar broadcasts; a list fills the trailing kept axes (Keras's expanded shape).
Tensor NormalizationImpl::given(const std::vector<double>& v) const {
  const DType dt = compute_dtype();
  if (v.size() == 1) return Tensor(v[0], dt);
  Shape expanded(std::vector<int64_t>(broadcast_shape_.rank(), 1));
  if (!keep_.empty()) expanded[keep_.back()] = static_cast<int64_t>(v.size());
  Tensor t = reshape(cast(Tensor(v, Shape{static_cast<int64_t>(v.size())}), dt), expanded);
  return broadcast_to(t, broadcast_shape_);
}

Tensor NormalizationImpl::mean() const {
  return o_.mean ? given(*o_.mean) : reshape(mean_.value(), broadcast_shape_);
}
Tensor NormalizationImpl::variance() const {
  return o_.variance ? given(*o_.variance) : reshape(variance_.value(), broadcast_shape_);
}

Tensor NormalizationImpl::call(const Tensor& input, bool) {
  Tensor x = cast_to_compute(input, compute_dtype());
  Tensor stddev = maximum(sqrt(variance()), scalar_like(kEpsilon, x));
  if (o_.invert) return mean() + x * stddev;
  return (x - mean()) / stddev;
}

void NormalizationImpl::adapt(const Tensor& data) {
  if (o_.mean)
    throw ValueError("Layer '" + name() + "' (Normalization): adapt() cannot be used when `mean` and `variance` were given");
  // The statistics are computed in the variables' dtype (float32 under a mixed policy).
  Tensor x = cast_to_compute(data, dtype());
  if (!built()) {
    Shape s = x.shape();
    s[0] = None;
    build_for(s);
  }
  const Shape stat_shape = mean_.shape();
  mean_.assign(reshape(kiln::mean(x, reduce_), stat_shape));
  variance_.assign(reshape(kiln::var(x, reduce_), stat_shape));
}

Config NormalizationImpl::get_config() const {
  Config c = layer_config(*this);
  // Keras writes the axis as a list (its tuple), and None for an empty one.
  c["axis"] = o_.axis.axes ? Config(*o_.axis.axes) : Config::array();
  // One value is written as a scalar: Keras reshapes a list onto the kept axes, and with none kept it cannot.
  for (const char* k : {"mean", "variance"})
    if (c[k].is_array() && c[k].size() == 1) c[k] = c[k][0];
  return c;
}

KILN_REGISTER_LAYER(NormalizationImpl, "Normalization")

}  // namespace kiln::layers

// Discretization: Keras 3's argument checks, numpy.digitize in float32, and the
// categorical encodings shared with CategoryEncoding.
#include "kiln/layers/discretization.h"

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "categorical_encoding.h"
#include "config_fields.h"
#include "quantile_summary.h"

namespace kiln::layers {

using namespace detail;

DiscretizationImpl::DiscretizationImpl(DiscretizationOptions o) : Layer(base_options(o)), o_(std::move(o)) {
  if (o_.sparse)
    throw ValueError("Discretization: `sparse=True` is not supported in Kiln, which has dense tensors only; use sparse=False");
  if (o_.output_mode != "int" && o_.output_mode != "one_hot" && o_.output_mode != "multi_hot" && o_.output_mode != "count")
    throw ValueError("Unknown value for `output_mode` argument of Discretization. Allowed values are: ('int', 'one_hot', "
                     "'multi_hot', 'count'). Received: output_mode=" + o_.output_mode);
  if (o_.num_bins && *o_.num_bins < 0)
    throw ValueError("Discretization: `num_bins` must be greater than or equal to 0. Received: `num_bins=" +
                     std::to_string(*o_.num_bins) + "`");
  if (o_.num_bins && o_.bin_boundaries)
    throw ValueError("Discretization: Both `num_bins` and `bin_boundaries` should not be set. Received: `num_bins=" +
                     std::to_string(*o_.num_bins) + "` and `bin_boundaries=" + Config(*o_.bin_boundaries).dump() + "`");
  if (!o_.num_bins && !o_.bin_boundaries)
    throw ValueError("Discretization: You need to set either `num_bins` or `bin_boundaries`.");
  apply_input_shape(*this, o_);
}

void DiscretizationImpl::adapt(const Tensor& data) {
  if (!o_.num_bins)
    throw ValueError("Cannot adapt a Discretization layer that has been initialized with `bin_boundaries`, use "
                     "`num_bins` instead.");
  o_.bin_boundaries = quantile_boundaries(cast(data, DType::float32).to_vector<float>(), o_.epsilon, *o_.num_bins);
}

Shape DiscretizationImpl::compute_output_shape(const Shape& s) {
  const int64_t depth = o_.bin_boundaries ? static_cast<int64_t>(o_.bin_boundaries->size()) + 1 : o_.num_bins.value_or(0);
  return encoded_shape(s, o_.output_mode, depth);
}

Tensor DiscretizationImpl::call(const Tensor& input, bool) {
  if (!o_.bin_boundaries)
    throw ValueError("You need to either pass the `bin_boundaries` argument at construction time or call "
                     "`adapt(dataset)` before you can start using the `Discretization` layer.");
  const auto n = static_cast<int64_t>(o_.bin_boundaries->size());
  const Tensor x = cast(input, DType::float32);
  Tensor indices = zeros(x.shape(), DType::int32);
  if (n > 0) {
    const Tensor bounds = cast(Tensor(*o_.bin_boundaries, Shape{n}), DType::float32);
    indices = cast(sum(cast(greater_equal(expand_dims(x, static_cast<int>(x.rank())), bounds), DType::int32),
                       static_cast<int>(x.rank())),
                   DType::int32);
  }
  indices = where(isnan(x), fill(x.shape(), static_cast<double>(n), DType::int32), indices);  // searchsorted's end
  const DType out = o_.output_mode == "int" ? DType::int32 : compute_dtype();
  return encode_categorical(indices, o_.output_mode, n + 1, out);
}

Config DiscretizationImpl::get_config() const {
  Config c = layer_config(*this);
  c.erase("trainable");  // Keras's Discretization takes no `trainable` argument
  return c;
}

std::shared_ptr<DiscretizationImpl> DiscretizationImpl::from_config(const Config& config) {
  const bool both = config.contains("bin_boundaries") && !config["bin_boundaries"].is_null() &&
                    config.contains("num_bins") && !config["num_bins"].is_null();
  if (!both) return layer_from_fields<DiscretizationImpl>("Discretization", config);
  Config c = config;
  c.erase("bin_boundaries");
  auto layer = layer_from_fields<DiscretizationImpl>("Discretization", c);
  layer->o_.bin_boundaries = config["bin_boundaries"].get<std::vector<double>>();
  return layer;
}

KILN_REGISTER_LAYER(DiscretizationImpl, "Discretization")

}  // namespace kiln::layers

// LayerScale, StochasticDepth and CustomScaleLayer, as keras.applications defines them.
#include "kiln/layers/application_layers.h"

#include "core/number_text.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/random.h"
#include "config_fields.h"

namespace kiln::layers {

using namespace detail;

LayerScaleImpl::LayerScaleImpl(double init_values, int64_t projection_dim, ApplicationLayerOptions o)
    : Layer(base_options(o)), init_values_(init_values), projection_dim_(projection_dim), o_(std::move(o)) {
  if (projection_dim_ <= 0)
    throw ValueError("LayerScale: projection_dim must be a positive integer, but received " +
                     std::to_string(projection_dim_));
  apply_input_shape(*this, o_);
}

void LayerScaleImpl::build(const Shape& s) {
  if (s.rank() < 1 || (s[-1] >= 0 && s[-1] != projection_dim_))
    throw ShapeError("Layer '" + name() + "' (LayerScale) has projection_dim=" + std::to_string(projection_dim_) +
                     " and expects inputs whose last axis has that size, but received input with shape " +
                     s.to_string());
  gamma_ = add_weight("variable", Shape{projection_dim_}, {.initializer = initializers::Constant(init_values_)});
}

Tensor LayerScaleImpl::call(const Tensor& x, bool) { return cast_to_compute(x, compute_dtype()) * gamma_.value(); }

Config LayerScaleImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(LayerScaleImpl, "LayerScale")

StochasticDepthImpl::StochasticDepthImpl(double rate, ApplicationLayerOptions o)
    : Layer(base_options(o)), drop_path_rate_(rate), o_(std::move(o)) {
  if (!(rate >= 0 && rate < 1))
    throw ValueError("StochasticDepth: drop_path_rate must be in [0, 1), but received " + kiln::detail::number_text(rate));
  apply_input_shape(*this, o_);
}

Tensor StochasticDepthImpl::call(const Tensor& input, bool training) {
  if (!training || drop_path_rate_ == 0) return input;
  Tensor x = cast_to_compute(input, compute_dtype());
  const double keep = 1.0 - drop_path_rate_;
  // One draw per sample, broadcast over the rest: the whole residual path goes.
  Shape per_sample(std::vector<int64_t>(static_cast<std::size_t>(x.rank()), 1));
  per_sample[0] = x.shape()[0];
  Tensor kept = floor(random::uniform(per_sample, 0.0, 1.0, x.dtype()) + keep);
  return x / keep * kept;
}

Config StochasticDepthImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(StochasticDepthImpl, "StochasticDepth")

CustomScaleLayerImpl::CustomScaleLayerImpl(double scale, ApplicationLayerOptions o)
    : Layer(base_options(o)), scale_(scale), o_(std::move(o)) {
  apply_input_shape(*this, o_);
}

std::vector<Shape> CustomScaleLayerImpl::compute_output_shape(const std::vector<Shape>& shapes) {
  if (shapes.size() != 2)
    throw ValueError("Layer '" + name() + "' (CustomScaleLayer) expects a list of 2 inputs, but received " +
                     std::to_string(shapes.size()));
  return {shapes[0]};
}

std::vector<Tensor> CustomScaleLayerImpl::call(const std::vector<Tensor>& xs, bool) {
  if (xs.size() != 2)
    throw ValueError("Layer '" + name() + "' (CustomScaleLayer) expects a list of 2 inputs, but received " +
                     std::to_string(xs.size()));
  return {cast_to_compute(xs[0], compute_dtype()) + cast_to_compute(xs[1], compute_dtype()) * scale_};
}

Config CustomScaleLayerImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(CustomScaleLayerImpl, "CustomScaleLayer")

}  // namespace kiln::layers

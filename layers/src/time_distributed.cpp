// TimeDistributed: folds time into the batch axis, runs the layer once, unfolds.
#include "kiln/layers/time_distributed.h"

#include <nlohmann/json.hpp>

#include "config_fields.h"
#include "kiln/ops/array_ops.h"
#include "nested_layers.h"

namespace kiln::layers {

using namespace detail;

namespace {
/// (batch, time, rest...) -> (batch, rest...): the shape the inner layer sees.
Shape without_time(const Shape& s) {
  Shape out{s[0]};
  for (int64_t i = 2; i < s.rank(); ++i) out.push_back(s[i]);
  return out;
}
}  // namespace

TimeDistributedImpl::TimeDistributedImpl(LayerPtr layer, TimeDistributedOptions o)
    : Layer(base_options(o)), layer_(std::move(layer)) {
  if (!layer_) throw ValueError("TimeDistributed: the wrapped layer is null");
  track_layer(layer_, "layer");
  apply_input_shape(*this, o);
  set_supports_masking(true);
  set_input_spec({InputSpec{.min_ndim = 3}});
}

void TimeDistributedImpl::build(const Shape& s) {
  layer_->build_for(without_time(s));
  prefix_weight_paths(*layer_, name());
}

Shape TimeDistributedImpl::compute_output_shape(const Shape& s) {
  Shape inner = layer_->compute_output_shape(without_time(s));
  Shape out{s[0], s[1]};
  for (int64_t i = 1; i < inner.rank(); ++i) out.push_back(inner[i]);
  return out;
}

Tensor TimeDistributedImpl::call(const Tensor& x, bool training) {
  const Shape& s = x.shape();
  Shape folded{s[0] * s[1]};
  for (int64_t i = 2; i < s.rank(); ++i) folded.push_back(s[i]);
  Tensor y = (*layer_)(reshape(x, folded), training);
  Shape out{s[0], s[1]};
  for (int64_t i = 1; i < y.rank(); ++i) out.push_back(y.shape()[i]);
  // Keras runs the inner layer in the wrapper's autocast scope: its output has the wrapper's compute dtype.
  return cast_input(reshape(y, out), compute_dtype());
}

Config TimeDistributedImpl::get_config() const {
  Config c = base_config();
  c["layer"] = serialize_nested(*layer_);
  add_declared_shape(*this, c);
  return c;
}

std::shared_ptr<TimeDistributedImpl> TimeDistributedImpl::from_config(const Config& config) {
  auto inner = nested_from_config<Layer>(config, "layer", "TimeDistributed");
  ConfigReader r("TimeDistributed", config);
  TimeDistributedOptions o;
  r.base(o);
  return std::make_shared<TimeDistributedImpl>(inner, o);
}

KILN_REGISTER_LAYER(TimeDistributedImpl, "TimeDistributed")

}  // namespace kiln::layers

// Global pooling: mean/max over the spatial axes.
#include "kiln/layers/global_pooling.h"

#include <algorithm>

#include "kiln/ops/reduce_ops.h"
#include "config_fields.h"

namespace kiln::layers {

using namespace detail;

GlobalPoolingImpl::GlobalPoolingImpl(int spatial_rank, bool is_max, GlobalPoolingOptions o)
    : Layer(base_options(o)), rank_(spatial_rank), is_max_(is_max), o_(std::move(o)) {
  o_.data_format = check_data_format(class_name(), o_.data_format);
  apply_input_shape(*this, o_);
  set_input_spec({InputSpec{.ndim = rank_ + 2}});
}

std::string GlobalPoolingImpl::class_name() const {
  return std::string(is_max_ ? "GlobalMaxPooling" : "GlobalAveragePooling") + std::to_string(rank_) + "D";
}

std::vector<int> GlobalPoolingImpl::spatial_axes() const {
  std::vector<int> axes;
  const int first = o_.data_format == "channels_last" ? 1 : 2;
  for (int i = 0; i < rank_; ++i) axes.push_back(first + i);
  return axes;
}

Tensor GlobalPoolingImpl::call(const Tensor& input, bool) {
  Tensor x = cast_input(input, compute_dtype());
  return is_max_ ? max(x, spatial_axes(), o_.keepdims) : mean(x, spatial_axes(), o_.keepdims);
}

Shape GlobalPoolingImpl::compute_output_shape(const Shape& s) {
  if (s.rank() != rank_ + 2)
    throw ShapeError("Layer '" + name() + "' (" + class_name() + ") expects inputs of rank " + std::to_string(rank_ + 2) +
                     ", but received input with shape " + s.to_string());
  auto axes = spatial_axes();
  Shape out;
  for (int i = 0; i < s.rank(); ++i) {
    bool spatial = std::find(axes.begin(), axes.end(), i) != axes.end();
    if (!spatial) out.push_back(s[i]);
    else if (o_.keepdims) out.push_back(1);
  }
  return out;
}

Config GlobalPoolingImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(GlobalAveragePooling2DImpl, "GlobalAveragePooling2D", "GlobalAvgPool2D")
KILN_REGISTER_LAYER(GlobalMaxPooling2DImpl, "GlobalMaxPooling2D", "GlobalMaxPool2D")
KILN_REGISTER_LAYER(GlobalAveragePooling1DImpl, "GlobalAveragePooling1D", "GlobalAvgPool1D")
KILN_REGISTER_LAYER(GlobalMaxPooling1DImpl, "GlobalMaxPooling1D", "GlobalMaxPool1D")
KILN_REGISTER_LAYER(GlobalAveragePooling3DImpl, "GlobalAveragePooling3D", "GlobalAvgPool3D")
KILN_REGISTER_LAYER(GlobalMaxPooling3DImpl, "GlobalMaxPooling3D", "GlobalMaxPool3D")

}  // namespace kiln::layers

// MaxPooling3D and AveragePooling3D as two 2D pools: (H, W) for every depth slice, then
// depth. Both reductions are separable over a box window (the window's valid part is a
// product of per-axis ranges, so "same" averaging over real elements factors too).
#include "kiln/layers/pooling3d.h"

#include "kiln/ops/array_ops.h"
#include "kiln/ops/nn_ops.h"
#include "config_fields.h"
#include "spatial_sizes.h"

namespace kiln::layers {

using namespace detail;

namespace {
std::vector<int> pooling3d_triple(const std::string& cls, const char* what, std::vector<int> v) {
  if (v.size() == 1) v = {v[0], v[0], v[0]};
  if (v.size() != 3 || v[0] <= 0 || v[1] <= 0 || v[2] <= 0)
    throw ValueError(cls + ": `" + what + "` must be a positive int or three positive ints");
  return v;
}
}  // namespace

Pooling3DImpl::Pooling3DImpl(std::vector<int> pool_size, Pooling3DOptions o, bool is_max)
    : Layer(base_options(o)), o_(std::move(o)), is_max_(is_max) {
  const std::string cls = is_max ? "MaxPooling3D" : "AveragePooling3D";
  pool_size_ = pooling3d_triple(cls, "pool_size", std::move(pool_size));
  o_.strides = o_.strides.empty() ? pool_size_ : pooling3d_triple(cls, "strides", o_.strides);
  o_.padding = check_padding(cls, o_.padding, {"valid", "same"});
  o_.data_format = check_data_format(cls, o_.data_format);
  apply_input_shape(*this, o_);
  set_input_spec({InputSpec{.ndim = 5}});
}

Tensor Pooling3DImpl::call(const Tensor& input, bool) {
  const bool cf = o_.data_format == "channels_first";
  Tensor x = cast_input(input, compute_dtype());
  if (cf) x = transpose(x, to_channels_last(5));
  const Shape s = x.shape();  // (b, D, H, W, C)
  auto pool = [&](const Tensor& t, Pool2DOptions po) { return is_max_ ? max_pool2d(t, po) : avg_pool2d(t, po); };
  Tensor hw = pool(reshape(x, {s[0] * s[1], s[2], s[3], s[4]}),
                   {{pool_size_[1], pool_size_[2]}, {o_.strides[1], o_.strides[2]}, o_.padding});
  const int64_t oh = hw.shape()[1], ow = hw.shape()[2];
  Tensor d = pool(reshape(hw, {s[0], s[1], oh * ow, s[4]}), {{pool_size_[0], 1}, {o_.strides[0], 1}, o_.padding});
  Tensor y = reshape(d, {s[0], d.shape()[1], oh, ow, s[4]});
  if (cf) y = transpose(y, to_channels_first(5));
  return y;
}

Shape Pooling3DImpl::compute_output_shape(const Shape& s) {
  if (s.rank() != 5)
    throw ShapeError("Layer '" + name() + "' (" + class_name() + ") expects inputs of rank 5, but received input with shape " +
                     s.to_string());
  const bool cf = o_.data_format == "channels_first";
  Shape out = s;
  for (int i = 0; i < 3; ++i) {
    const int a = (cf ? 2 : 1) + i;
    const int64_t o = conv_output_length(s[a], pool_size_[i], o_.padding, o_.strides[i], 1);
    if (s[a] >= 0 && o <= 0)
      throw ValueError("Layer '" + name() + "' (" + class_name() + "): computed output size would be negative or zero. Received input shape " +
                       s.to_string());
    out[a] = o;
  }
  return out;
}

Config Pooling3DImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(MaxPooling3DImpl, "MaxPooling3D", "MaxPool3D")
KILN_REGISTER_LAYER(AveragePooling3DImpl, "AveragePooling3D", "AvgPool3D")

}  // namespace kiln::layers

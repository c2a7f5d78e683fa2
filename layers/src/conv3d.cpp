// Conv3D on keras.ops.conv (a sum over the kernel's depth taps of 2D convolutions).
#include "kiln/layers/conv3d.h"

#include <algorithm>
#include <vector>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/keras_nn_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/nn_ops.h"
#include "config_fields.h"
#include "spatial_sizes.h"

namespace kiln::layers {

using namespace detail;

namespace {
std::vector<int> conv3d_triple(const char* what, std::vector<int> v) {
  if (v.size() == 1) v = {v[0], v[0], v[0]};
  if (v.size() != 3 || v[0] <= 0 || v[1] <= 0 || v[2] <= 0)
    throw ValueError(std::string("Conv3D: `") + what + "` must be a positive int or three positive ints");
  return v;
}
}  // namespace

Conv3DImpl::Conv3DImpl(int64_t filters, std::vector<int> kernel_size, Conv3DOptions o)
    : LoraLayer(base_options(o), o.lora_rank, o.lora_alpha), filters_(filters), o_(std::move(o)) {
  if (filters_ <= 0) throw ValueError("Conv3D: `filters` must be positive, got " + std::to_string(filters_));
  kernel_size_ = conv3d_triple("kernel_size", std::move(kernel_size));
  o_.strides = conv3d_triple("strides", o_.strides);
  o_.dilation_rate = conv3d_triple("dilation_rate", o_.dilation_rate);
  if (o_.groups <= 0 || filters_ % o_.groups != 0)
    throw ValueError("Conv3D: the number of filters must be evenly divisible by the number of groups. Received: groups=" +
                     std::to_string(o_.groups) + ", filters=" + std::to_string(filters_));
  const bool strided = std::any_of(o_.strides.begin(), o_.strides.end(), [](int s) { return s > 1; });
  const bool dilated = std::any_of(o_.dilation_rate.begin(), o_.dilation_rate.end(), [](int d) { return d > 1; });
  if (strided && dilated) throw ValueError("Conv3D: `strides > 1` not supported in conjunction with `dilation_rate > 1`");
  o_.padding = check_padding("Conv3D", o_.padding, {"valid", "same"});
  o_.data_format = check_data_format("Conv3D", o_.data_format);
  activation_ = activations::get(o_.activation);
  activity_regularizer = o_.activity_regularizer;
  apply_input_shape(*this, o_);
  set_input_spec({InputSpec{.ndim = 5}});
}

void Conv3DImpl::build(const Shape& s) {
  const int64_t c = s[o_.data_format == "channels_first" ? 1 : 4];
  if (c < 0) throw ValueError("Layer '" + name() + "' (Conv3D): the channel axis of the inputs must be known");
  if (c % o_.groups != 0)
    throw ValueError("Layer '" + name() + "' (Conv3D): the number of input channels must be evenly divisible by the "
                     "number of groups. Received groups=" + std::to_string(o_.groups) + ", but the input has " +
                     std::to_string(c) + " channels (full input shape is " + s.to_string() + ")");
  kernel_ = add_weight("kernel", {kernel_size_[0], kernel_size_[1], kernel_size_[2], c / o_.groups, filters_},
                       {.initializer = o_.kernel_initializer, .regularizer = o_.kernel_regularizer, .constraint = o_.kernel_constraint});
  if (o_.use_bias)
    bias_ = add_weight("bias", {filters_},
                       {.initializer = o_.bias_initializer, .regularizer = o_.bias_regularizer, .constraint = o_.bias_constraint});
  build_lora(true);
}

LoraLayer::LoraBase Conv3DImpl::lora_base() const {
  return {kernel_, o_.kernel_regularizer, o_.kernel_constraint != nullptr, "kernel"};
}

Shape Conv3DImpl::compute_output_shape(const Shape& s) {
  if (s.rank() != 5)
    throw ShapeError("Layer '" + name() + "' (Conv3D) expects inputs of rank 5, but received input with shape " + s.to_string());
  const bool cf = o_.data_format == "channels_first";
  Shape out = s;
  for (int i = 0; i < 3; ++i) {
    const int a = (cf ? 2 : 1) + i;
    out[a] = conv_output_length(s[a], kernel_size_[i], o_.padding, o_.strides[i], o_.dilation_rate[i]);
    if (s[a] >= 0 && out[a] <= 0)
      throw ValueError("Layer '" + name() + "' (Conv3D): computed output size would be negative or zero. Received input shape " +
                       s.to_string());
  }
  out[cf ? 1 : 4] = filters_;
  return out;
}

Tensor Conv3DImpl::call(const Tensor& input, bool) {
  const bool cf = o_.data_format == "channels_first";
  Tensor x = cast_to_compute(input, compute_dtype());
  if (cf) x = transpose(x, to_channels_last(5));
  const std::vector<int64_t> strides(o_.strides.begin(), o_.strides.end());
  const std::vector<int64_t> dilation(o_.dilation_rate.begin(), o_.dilation_rate.end());
  // keras.ops.conv splits the channels into o_.groups groups itself.
  Tensor y = ::kiln::conv(x, kernel_with_lora(), {strides, o_.padding, "channels_last", dilation});
  if (o_.use_bias) y = bias_add(y, bias_.value());
  if (cf) y = transpose(y, to_channels_first(5));
  return activation_(y);
}

Config Conv3DImpl::get_config() const {
  Config c = layer_config(*this);
  write_lora_config(c);
  return c;
}

KILN_REGISTER_LAYER(Conv3DImpl, "Conv3D", "Convolution3D")

}  // namespace kiln::layers

// DepthwiseConv1D/2D and SeparableConv1D/2D on kiln::depthwise_conv2d; 1D runs on a
// unit height axis.
#include "kiln/layers/depthwise_conv.h"

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/nn_ops.h"
#include "config_fields.h"
#include "spatial_sizes.h"

namespace kiln::layers {

using namespace detail;

template <int N>
DepthwiseBase<N>::DepthwiseBase(std::string cls, SpatialSize<N> kernel_size, LayerOptions base, SpatialSize<N> strides,
                                std::string padding, std::string data_format, SpatialSize<N> dilation,
                                int depth_multiplier, const std::string& activation)
    : Layer(std::move(base)), cls_(std::move(cls)), kernel_size_(kernel_size), strides_(strides), dilation_(dilation),
      depth_multiplier_(depth_multiplier), activation_(activations::get(activation)) {
  if (!all_positive(size_values(kernel_size_))) throw ValueError(cls_ + ": `kernel_size` must be positive, got " + size_text(kernel_size_));
  if (!all_positive(size_values(strides_))) throw ValueError(cls_ + ": `strides` must be positive, got " + size_text(strides_));
  if (!all_positive(size_values(dilation_))) throw ValueError(cls_ + ": `dilation_rate` must be positive, got " + size_text(dilation_));
  if (any_above_one(size_values(strides_)) && any_above_one(size_values(dilation_)))
    throw ValueError(cls_ + ": `strides > 1` not supported in conjunction with `dilation_rate > 1`");
  if (depth_multiplier_ <= 0) throw ValueError(cls_ + ": `depth_multiplier` must be positive, got " + std::to_string(depth_multiplier_));
  padding_ = check_padding(cls_, std::move(padding), {"valid", "same"});
  data_format_ = check_data_format(cls_, data_format);
  set_input_spec({InputSpec{.ndim = N + 2}});
}

template <int N>
int64_t DepthwiseBase<N>::channels(const Shape& s) const {
  const int64_t c = s[channels_first() ? 1 : N + 1];
  if (c < 0) throw ValueError("Layer '" + name() + "' (" + cls_ + "): the channel axis of the inputs must be known, got " + s.to_string());
  return c;
}

template <int N>
Shape DepthwiseBase<N>::compute_output_shape(const Shape& s) {
  if (s.rank() != N + 2)
    throw ShapeError("Layer '" + name() + "' (" + cls_ + ") expects inputs of rank " + std::to_string(N + 2) +
                     ", but received input with shape " + s.to_string());
  const bool cf = channels_first();
  const auto k = size_values(kernel_size_), st = size_values(strides_), d = size_values(dilation_);
  Shape out = s;
  for (int i = 0; i < N; ++i) {
    const int a = (cf ? 2 : 1) + i;
    out[a] = conv_output_length(s[a], k[i], padding_, st[i], d[i]);
    if (s[a] >= 0 && out[a] <= 0)
      throw ValueError("Layer '" + name() + "' (" + cls_ + "): computed output size would be negative or zero. Received input shape " +
                       s.to_string());
  }
  out[cf ? 1 : N + 1] = out_channels(channels(s));
  return out;
}

template <int N>
Tensor DepthwiseBase<N>::depthwise(const Tensor& x, const Tensor& kernel) const {
  // x: (b, *spatial, C) -> (b, H, W, C) with H = 1 for 1D; kernel (*k, C, M) -> (kh, kw, C, M).
  Tensor x4 = N == 1 ? expand_dims(x, 1) : x;
  const Shape ks = kernel.shape();
  const int64_t c = ks[N], m = ks[N + 1];
  Tensor k4 = N == 1 ? reshape(kernel, {1, ks[0], c, m}) : kernel;
  const Conv2DOptions co{size_2d(strides_), padding_, size_2d(dilation_)};
  Tensor y = depthwise_conv2d(x4, k4, co);
  return N == 1 ? squeeze(y, {1}) : y;
}

template <int N>
static Shape depthwise_kernel_shape(SpatialSize<N> k, int64_t c, int64_t m) {
  Shape s;
  for (int64_t v : size_values(k)) s.push_back(v);
  s.push_back(c);
  s.push_back(m);
  return s;
}

// ---- DepthwiseConv ----
template <int N>
DepthwiseConvImpl<N>::DepthwiseConvImpl(SpatialSize<N> kernel_size, Options o)
    : DepthwiseBase<N>(N == 1 ? "DepthwiseConv1D" : "DepthwiseConv2D", kernel_size, base_options(o), o.strides, o.padding,
                       o.data_format, o.dilation_rate, o.depth_multiplier, o.activation),
      o_(std::move(o)) {
  o_.padding = this->padding_;
  o_.data_format = this->data_format_;
  this->activity_regularizer = o_.activity_regularizer;
  apply_input_shape(*this, o_);
}

template <int N>
void DepthwiseConvImpl<N>::build(const Shape& s) {
  const int64_t c = this->channels(s);
  kernel_ = this->add_weight("kernel", depthwise_kernel_shape<N>(this->kernel_size_, c, o_.depth_multiplier),
                             {.initializer = o_.depthwise_initializer, .regularizer = o_.depthwise_regularizer,
                              .constraint = o_.depthwise_constraint});
  if (o_.use_bias)
    bias_ = this->add_weight("bias", {c * o_.depth_multiplier},
                             {.initializer = o_.bias_initializer, .regularizer = o_.bias_regularizer, .constraint = o_.bias_constraint});
}

template <int N>
Tensor DepthwiseConvImpl<N>::call(const Tensor& input, bool) {
  const bool cf = this->channels_first();
  Tensor x = cast_to_compute(input, this->compute_dtype());
  if (cf) x = transpose(x, to_channels_last(N + 2));
  Tensor y = this->depthwise(x, kernel_.value());
  if (o_.use_bias) y = bias_add(y, bias_.value());
  if (cf) y = transpose(y, to_channels_first(N + 2));
  return this->activation_(y);
}

template <int N>
Config DepthwiseConvImpl<N>::get_config() const {
  return layer_config(*this);
}

// ---- SeparableConv ----
template <int N>
SeparableConvImpl<N>::SeparableConvImpl(int64_t filters, SpatialSize<N> kernel_size, Options o)
    : DepthwiseBase<N>(N == 1 ? "SeparableConv1D" : "SeparableConv2D", kernel_size, base_options(o), o.strides, o.padding,
                       o.data_format, o.dilation_rate, o.depth_multiplier, o.activation),
      filters_(filters), o_(std::move(o)) {
  if (filters_ <= 0) throw ValueError(this->cls_ + ": `filters` must be positive, got " + std::to_string(filters_));
  o_.padding = this->padding_;
  o_.data_format = this->data_format_;
  this->activity_regularizer = o_.activity_regularizer;
  apply_input_shape(*this, o_);
}

template <int N>
void SeparableConvImpl<N>::build(const Shape& s) {
  const int64_t c = this->channels(s), m = o_.depth_multiplier;
  depthwise_kernel_ = this->add_weight("depthwise_kernel", depthwise_kernel_shape<N>(this->kernel_size_, c, m),
                                       {.initializer = o_.depthwise_initializer, .regularizer = o_.depthwise_regularizer,
                                        .constraint = o_.depthwise_constraint});
  Shape pw = N == 1 ? Shape{1, c * m, filters_} : Shape{1, 1, c * m, filters_};
  pointwise_kernel_ = this->add_weight("pointwise_kernel", pw,
                                       {.initializer = o_.pointwise_initializer, .regularizer = o_.pointwise_regularizer,
                                        .constraint = o_.pointwise_constraint});
  if (o_.use_bias)
    bias_ = this->add_weight("bias", {filters_},
                             {.initializer = o_.bias_initializer, .regularizer = o_.bias_regularizer, .constraint = o_.bias_constraint});
}

template <int N>
Tensor SeparableConvImpl<N>::call(const Tensor& input, bool) {
  const bool cf = this->channels_first();
  Tensor x = cast_to_compute(input, this->compute_dtype());
  if (cf) x = transpose(x, to_channels_last(N + 2));
  Tensor d = this->depthwise(x, depthwise_kernel_.value());
  // The pointwise 1x1 convolution is a matmul over the channel axis.
  const Shape ps = pointwise_kernel_.shape();
  Tensor y = matmul(d, reshape(pointwise_kernel_.value(), {ps[N], ps[N + 1]}));
  if (o_.use_bias) y = bias_add(y, bias_.value());
  if (cf) y = transpose(y, to_channels_first(N + 2));
  return this->activation_(y);
}

template <int N>
Config SeparableConvImpl<N>::get_config() const {
  return layer_config(*this);
}

template class DepthwiseBase<1>;
template class DepthwiseBase<2>;
template class DepthwiseConvImpl<1>;
template class DepthwiseConvImpl<2>;
template class SeparableConvImpl<1>;
template class SeparableConvImpl<2>;

KILN_REGISTER_LAYER(DepthwiseConv1DImpl, "DepthwiseConv1D")
KILN_REGISTER_LAYER(DepthwiseConv2DImpl, "DepthwiseConv2D")
KILN_REGISTER_LAYER(SeparableConv1DImpl, "SeparableConv1D", "SeparableConvolution1D")
KILN_REGISTER_LAYER(SeparableConv2DImpl, "SeparableConv2D", "SeparableConvolution2D")

}  // namespace kiln::layers

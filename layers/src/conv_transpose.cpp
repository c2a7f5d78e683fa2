// Conv1DTranspose/Conv2DTranspose on keras.ops.conv_transpose.
#include "kiln/layers/conv_transpose.h"

#include <algorithm>
#include <vector>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/keras_nn_ops.h"
#include "kiln/ops/nn_ops.h"
#include "config_fields.h"
#include "spatial_sizes.h"

namespace kiln::layers {

using namespace detail;

namespace {

std::optional<int64_t> nth(const std::optional<std::vector<int64_t>>& v, int i) {
  if (!v) return std::nullopt;
  return (*v)[static_cast<std::size_t>(i)];
}

}  // namespace

template <int N>
ConvTransposeImpl<N>::ConvTransposeImpl(int64_t filters, SpatialSize<N> kernel_size, Options o)
    : Layer(base_options(o)), filters_(filters), kernel_size_(kernel_size), o_(std::move(o)) {
  const std::string cls = N == 1 ? "Conv1DTranspose" : "Conv2DTranspose";
  if (filters_ <= 0) throw ValueError(cls + ": `filters` must be positive, got " + std::to_string(filters_));
  if (!all_positive(size_values(kernel_size_))) throw ValueError(cls + ": `kernel_size` must be positive, got " + size_text(kernel_size_));
  if (!all_positive(size_values(o_.strides))) throw ValueError(cls + ": `strides` must be positive, got " + size_text(o_.strides));
  if (!all_positive(size_values(o_.dilation_rate)))
    throw ValueError(cls + ": `dilation_rate` must be positive, got " + size_text(o_.dilation_rate));
  o_.padding = check_padding(cls, o_.padding, {"valid", "same"});
  o_.data_format = check_data_format(cls, o_.data_format);
  activation_ = activations::get(o_.activation);
  activity_regularizer = o_.activity_regularizer;
  apply_input_shape(*this, o_);
  set_input_spec({InputSpec{.ndim = N + 2}});
}

template <int N>
void ConvTransposeImpl<N>::build(const Shape& s) {
  const int64_t c = s[o_.data_format == "channels_first" ? 1 : N + 1];
  if (c < 0) throw ValueError("Layer '" + name() + "' (" + class_name() + "): the channel axis of the inputs must be known");
  Shape ks;
  for (int64_t v : size_values(kernel_size_)) ks.push_back(v);
  ks.push_back(filters_);
  ks.push_back(c);
  kernel_ = add_weight("kernel", ks,
                       {.initializer = o_.kernel_initializer, .regularizer = o_.kernel_regularizer, .constraint = o_.kernel_constraint});
  if (o_.use_bias)
    bias_ = add_weight("bias", {filters_},
                       {.initializer = o_.bias_initializer, .regularizer = o_.bias_regularizer, .constraint = o_.bias_constraint});
}

template <int N>
Shape ConvTransposeImpl<N>::compute_output_shape(const Shape& s) {
  if (s.rank() != N + 2)
    throw ShapeError("Layer '" + name() + "' (" + class_name() + ") expects inputs of rank " + std::to_string(N + 2) +
                     ", but received input with shape " + s.to_string());
  const bool cf = o_.data_format == "channels_first";
  const auto k = size_values(kernel_size_), st = size_values(o_.strides), d = size_values(o_.dilation_rate);
  std::optional<std::vector<int64_t>> op;
  if (o_.output_padding) op = size_values(*o_.output_padding);
  Shape out = s;
  for (int i = 0; i < N; ++i) {
    const int a = (cf ? 2 : 1) + i;
    out[a] = ::kiln::conv_transpose_output_length(s[a], k[i], st[i], d[i], o_.padding, nth(op, i));
  }
  out[cf ? 1 : N + 1] = filters_;
  return out;
}

template <int N>
Tensor ConvTransposeImpl<N>::call(const Tensor& input, bool) {
  const auto st = size_values(o_.strides), d = size_values(o_.dilation_rate);
  std::optional<std::vector<int64_t>> op;
  if (o_.output_padding) op = size_values(*o_.output_padding);
  const bool cf = o_.data_format == "channels_first";
  Tensor x = cast_to_compute(input, compute_dtype());
  if (cf) x = transpose(x, to_channels_last(N + 2));
  Tensor y = ::kiln::conv_transpose(x, kernel_.value(), {st, o_.padding, op, "channels_last", d});
  if (o_.use_bias) y = bias_add(y, bias_.value());
  if (cf) y = transpose(y, to_channels_first(N + 2));
  return activation_(y);
}

template <int N>
Config ConvTransposeImpl<N>::get_config() const {
  return layer_config(*this);
}

template class ConvTransposeImpl<1>;
template class ConvTransposeImpl<2>;

KILN_REGISTER_LAYER(Conv1DTransposeImpl, "Conv1DTranspose", "Convolution1DTranspose")
KILN_REGISTER_LAYER(Conv2DTransposeImpl, "Conv2DTranspose", "Convolution2DTranspose")

}  // namespace kiln::layers

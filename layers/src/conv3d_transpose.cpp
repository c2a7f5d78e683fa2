// Conv3DTranspose on keras.ops.conv_transpose (jax.lax.conv_transpose's arithmetic).
#include "kiln/layers/conv3d_transpose.h"

#include <algorithm>
#include <set>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/keras_nn_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/nn_ops.h"
#include "config_fields.h"
#include "spatial_sizes.h"

namespace kiln::layers {

using namespace detail;

namespace {

std::string tuple_text(const std::vector<int>& v) {
  std::string s = "(";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + ")";
}

// Keras's standardize_tuple(value, 3, name, allow_zero).
std::vector<int> transpose_triple(const char* name, std::vector<int> v, bool allow_zero = false) {
  const std::string given = v.size() == 1 ? std::to_string(v[0]) : tuple_text(v);
  std::string msg = std::string("Conv3DTranspose: the `") + name + "` argument must be a tuple of 3 integers. Received " +
                    name + "=" + given;
  if (v.size() == 1) v = {v[0], v[0], v[0]};
  if (v.size() != 3) throw ValueError(msg);
  std::set<int> bad;
  for (int x : v)
    if (allow_zero ? x < 0 : x <= 0) bad.insert(x);
  if (!bad.empty()) {
    std::string vals;
    for (int x : bad) vals += (vals.empty() ? "" : ", ") + std::to_string(x);
    throw ValueError(msg + ", including values {" + vals + "} that do not satisfy `value " + (allow_zero ? ">= 0" : "> 0") +
                     "`");
  }
  return v;
}

std::optional<int64_t> nth_or(const std::optional<std::vector<int>>& v, int i) {
  if (!v) return std::nullopt;
  return (*v)[static_cast<std::size_t>(i)];
}

}  // namespace

Conv3DTransposeImpl::Conv3DTransposeImpl(int64_t filters, std::vector<int> kernel_size, Conv3DTransposeOptions o)
    : Layer(base_options(o)), filters_(filters), o_(std::move(o)) {
  if (filters_ <= 0)
    throw ValueError("Conv3DTranspose: invalid value for argument `filters`. Expected a strictly positive value. Received filters=" +
                     std::to_string(filters_) + ".");
  kernel_size_ = transpose_triple("kernel_size", std::move(kernel_size));
  o_.strides = transpose_triple("strides", o_.strides);
  o_.dilation_rate = transpose_triple("dilation_rate", o_.dilation_rate);
  if (o_.output_padding) {
    o_.output_padding = transpose_triple("output_padding", *o_.output_padding, /*allow_zero=*/true);
    for (int i = 0; i < 3; ++i)
      if ((*o_.output_padding)[i] >= o_.strides[i])
        throw ValueError("Conv3DTranspose: `output_padding` must be strictly less than `strides` for all dimensions. At dimension " +
                         std::to_string(i) + ", `output_padding` is " + std::to_string((*o_.output_padding)[i]) +
                         " but `strides` is " + std::to_string(o_.strides[i]) + ". Received: output_padding=" +
                         tuple_text(*o_.output_padding) + ", strides=" + tuple_text(o_.strides));
  }
  if (*std::max_element(o_.strides.begin(), o_.strides.end()) > 1 &&
      *std::max_element(o_.dilation_rate.begin(), o_.dilation_rate.end()) > 1)
    throw ValueError("Conv3DTranspose: `strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: strides=" +
                     tuple_text(o_.strides) + " and dilation_rate=" + tuple_text(o_.dilation_rate));
  o_.padding = check_padding("Conv3DTranspose", o_.padding, {"valid", "same"});
  o_.data_format = check_data_format("Conv3DTranspose", o_.data_format);
  activation_ = activations::get(o_.activation);
  activity_regularizer = o_.activity_regularizer;
  apply_input_shape(*this, o_);
  set_input_spec({InputSpec{.ndim = 5}});
}

void Conv3DTransposeImpl::build(const Shape& s) {
  const int64_t c = s[o_.data_format == "channels_first" ? 1 : 4];
  if (c < 0) throw ValueError("Layer '" + name() + "' (Conv3DTranspose): the channel axis of the inputs must be known");
  kernel_ = add_weight("kernel", {kernel_size_[0], kernel_size_[1], kernel_size_[2], filters_, c},
                       {.initializer = o_.kernel_initializer, .regularizer = o_.kernel_regularizer, .constraint = o_.kernel_constraint});
  if (o_.use_bias)
    bias_ = add_weight("bias", {filters_},
                       {.initializer = o_.bias_initializer, .regularizer = o_.bias_regularizer, .constraint = o_.bias_constraint});
}

Shape Conv3DTransposeImpl::compute_output_shape(const Shape& s) {
  if (s.rank() != 5)
    throw ShapeError("Layer '" + name() + "' (Conv3DTranspose) expects inputs of rank 5, but received input with shape " +
                     s.to_string());
  const bool cf = o_.data_format == "channels_first";
  Shape out = s;
  for (int i = 0; i < 3; ++i) {
    const int a = (cf ? 2 : 1) + i;
    out[a] = ::kiln::conv_transpose_output_length(s[a], kernel_size_[i], o_.strides[i], o_.dilation_rate[i], o_.padding,
                                     nth_or(o_.output_padding, i));
  }
  out[cf ? 1 : 4] = filters_;
  return out;
}

Tensor Conv3DTransposeImpl::call(const Tensor& input, bool) {
  const bool cf = o_.data_format == "channels_first";
  Tensor x = cast_to_compute(input, compute_dtype());
  if (cf) x = transpose(x, to_channels_last(5));
  std::optional<std::vector<int64_t>> op;
  if (o_.output_padding) op = std::vector<int64_t>(o_.output_padding->begin(), o_.output_padding->end());
  const std::vector<int64_t> strides(o_.strides.begin(), o_.strides.end());
  const std::vector<int64_t> dilation(o_.dilation_rate.begin(), o_.dilation_rate.end());
  Tensor y = ::kiln::conv_transpose(x, kernel_.value(), {strides, o_.padding, op, "channels_last", dilation});
  if (o_.use_bias) y = bias_add(y, bias_.value());
  if (cf) y = transpose(y, to_channels_first(5));
  return activation_(y);
}

Config Conv3DTransposeImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(Conv3DTransposeImpl, "Conv3DTranspose", "Convolution3DTranspose")

}  // namespace kiln::layers

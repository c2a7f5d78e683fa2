// The rank-generic half of the convolution layers; Conv1D and Conv2D add the call.
#include "kiln/layers/base_conv.h"

#include "kiln/ops/array_ops.h"
#include "kiln/ops/nn_ops.h"
#include "config_fields.h"
#include "spatial_sizes.h"

namespace kiln::layers {

using namespace detail;

template <int N>
BaseConvImpl<N>::BaseConvImpl(std::string cls, int64_t filters, KernelSize kernel_size, ConvOptions<N> o,
                              std::initializer_list<const char*> paddings)
    : LoraLayer(base_options(o), o.lora_rank, o.lora_alpha), filters_(filters), kernel_size_(kernel_size), o_(std::move(o)), cls_(std::move(cls)) {
  if (filters_ <= 0)
    throw ValueError(cls_ + ": invalid value for argument `filters`, expected a positive integer, got " +
                     std::to_string(filters_));
  if (!all_positive(size_values(kernel_size_)))
    throw ValueError(cls_ + ": `kernel_size` must be positive, got " + size_text(kernel_size_));
  const auto strides = size_values(o_.strides), dilation = size_values(o_.dilation_rate);
  if (!all_positive(strides) || !all_positive(dilation))
    throw ValueError(cls_ + ": `strides` and `dilation_rate` must be positive");
  if (any_above_one(strides) && any_above_one(dilation))
    throw ValueError(cls_ + ": `strides > 1` is not compatible with `dilation_rate > 1`");
  if (o_.groups <= 0 || filters_ % o_.groups != 0)
    throw ValueError(cls_ + ": the number of filters must be evenly divisible by the number of groups. Received: groups=" +
                     std::to_string(o_.groups) + ", filters=" + std::to_string(filters_));
  o_.padding = check_padding(cls_, o_.padding, paddings);
  o_.data_format = check_data_format(cls_, o_.data_format);
  activation_ = activations::get(o_.activation);
  if (o_.activation.empty()) o_.activation = "linear";
  activity_regularizer = o_.activity_regularizer;
  apply_input_shape(*this, o_);
  set_input_spec({InputSpec{.min_ndim = N + 2, .max_ndim = N + 2}});
}

template <int N>
void BaseConvImpl<N>::build(const Shape& s) {
  const int64_t c_axis = channels_first() ? 1 : -1;
  const int64_t in = s[c_axis];
  if (in < 0)
    throw ValueError("Layer '" + name() + "' (" + cls_ +
                     "): the channel dimension of the inputs should be defined, but received input with shape " +
                     s.to_string());
  if (in % o_.groups != 0)
    throw ValueError("Layer '" + name() + "' (" + cls_ +
                     "): the number of input channels must be evenly divisible by the number of groups. Received groups=" +
                     std::to_string(o_.groups) + ", but the input has " + std::to_string(in) +
                     " channels (full input shape is " + s.to_string() + ")");
  compute_output_shape(s);  // throws if the output would be empty
  std::vector<int64_t> kernel_shape = size_values(kernel_size_);
  kernel_shape.push_back(in / o_.groups);
  kernel_shape.push_back(filters_);
  kernel_ = add_weight("kernel", Shape(kernel_shape),
                       {.initializer = o_.kernel_initializer, .regularizer = o_.kernel_regularizer,
                        .constraint = o_.kernel_constraint});
  if (o_.use_bias)
    bias_ = add_weight("bias", {filters_},
                       {.initializer = o_.bias_initializer, .regularizer = o_.bias_regularizer,
                        .constraint = o_.bias_constraint});
  set_input_spec({InputSpec{.min_ndim = N + 2, .max_ndim = N + 2, .axes = {{c_axis, in}}}});
  build_lora(true);
}

template <int N>
LoraLayer::LoraBase BaseConvImpl<N>::lora_base() const {
  return {kernel_, o_.kernel_regularizer, o_.kernel_constraint != nullptr, "kernel"};
}

template <int N>
Shape BaseConvImpl<N>::compute_output_shape(const Shape& s) {
  if (s.rank() != N + 2)
    throw ShapeError("Layer '" + name() + "' (" + cls_ + ") expects inputs of rank " + std::to_string(N + 2) +
                     ", but received input with shape " + s.to_string());
  const bool cf = channels_first();
  const auto kernel = size_values(kernel_size_), strides = size_values(o_.strides),
             dilation = size_values(o_.dilation_rate);
  Shape out{s[0]};
  if (cf) out.push_back(filters_);
  for (int i = 0; i < N; ++i) {
    const int64_t in = s[(cf ? 2 : 1) + i];
    const int64_t o = conv_output_length(in, kernel[i], o_.padding, strides[i], dilation[i]);
    if (in >= 0 && o <= 0)
      throw ValueError("Layer '" + name() + "' (" + cls_ +
                       "): computed output size would be negative or zero. Received input shape " + s.to_string() +
                       ", kernel_size " + size_text(kernel_size_) + ", dilation_rate " + size_text(o_.dilation_rate) +
                       ", padding \"" + o_.padding + "\"");
    out.push_back(o);
  }
  if (!cf) out.push_back(filters_);
  return out;
}

template <int N>
Config BaseConvImpl<N>::get_config() const {
  Config c = layer_config(*this);
  write_lora_config(c);
  return c;
}

template <int N>
Tensor BaseConvImpl<N>::channels_last_input(const Tensor& input) const {
  Tensor x = cast_to_compute(input, compute_dtype());
  return channels_first() ? transpose(x, to_channels_last(N + 2)) : x;
}

template <int N>
::kiln::Conv2DOptions BaseConvImpl<N>::conv2d_options(const std::string& padding) const {
  return {size_2d(o_.strides), padding, size_2d(o_.dilation_rate)};
}

template <int N>
Tensor BaseConvImpl<N>::grouped_conv2d(const Tensor& x, const Tensor& kernel, const std::string& padding) const {
  const ::kiln::Conv2DOptions co = conv2d_options(padding);
  if (o_.groups == 1) return conv2d(x, kernel, co);
  const Shape ks = kernel.shape();
  // One input channel per group is a depthwise convolution: group g's filters
  // are output channels g·M .. g·M + M - 1, as depthwise_conv2d orders them.
  if (ks[2] == 1) return depthwise_conv2d(x, reshape(kernel, {ks[0], ks[1], o_.groups, ks[3] / o_.groups}), co);
  auto xs = split(x, o_.groups, 3);
  auto ws = split(kernel, o_.groups, 3);
  std::vector<Tensor> ys;
  for (int g = 0; g < o_.groups; ++g) ys.push_back(conv2d(xs[g], ws[g], co));
  return concat(ys, 3);
}

template class BaseConvImpl<1>;
template class BaseConvImpl<2>;

}  // namespace kiln::layers

// Conv1D as a Conv2D over (batch, 1, steps, channels) with a (1, k, in, out) kernel.
#include "kiln/layers/conv1d.h"

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/nn_ops.h"
#include "layer_utils.h"

namespace kiln::layers {

using namespace detail;

Conv1DImpl::Conv1DImpl(int64_t filters, int64_t kernel_size, Conv1DOptions o)
    : Layer(base_options(o)), filters_(filters), kernel_size_(kernel_size), o_(std::move(o)) {
  if (filters_ <= 0)
    throw ValueError("Conv1D: invalid value for argument `filters`, expected a positive integer, got " +
                     std::to_string(filters_));
  if (kernel_size_ <= 0) throw ValueError("Conv1D: `kernel_size` must be positive, got " + std::to_string(kernel_size_));
  if (o_.strides <= 0 || o_.dilation_rate <= 0) throw ValueError("Conv1D: `strides` and `dilation_rate` must be positive");
  if (o_.strides > 1 && o_.dilation_rate > 1)
    throw ValueError("Conv1D: `strides > 1` is not compatible with `dilation_rate > 1`");
  if (o_.groups <= 0 || filters_ % o_.groups != 0)
    throw ValueError("Conv1D: the number of filters must be evenly divisible by the number of groups. Received: groups=" +
                     std::to_string(o_.groups) + ", filters=" + std::to_string(filters_));
  o_.padding = check_padding("Conv1D", o_.padding, {"valid", "same", "causal"});
  o_.data_format = check_data_format("Conv1D", o_.data_format);
  activation_ = activations::get(o_.activation);
  if (o_.activation.empty()) o_.activation = "linear";
  activity_regularizer = o_.activity_regularizer;
  apply_input_shape(*this, o_);
  set_input_spec({InputSpec{.min_ndim = 3, .max_ndim = 3}});
}

void Conv1DImpl::build(const Shape& s) {
  const int64_t c_axis = o_.data_format == "channels_last" ? -1 : 1;
  const int64_t in = s[c_axis];
  if (in < 0)
    throw ValueError("Layer '" + name() + "' (Conv1D): the channel dimension of the inputs should be defined, but received input with shape " +
                     s.to_string());
  if (in % o_.groups != 0)
    throw ValueError("Layer '" + name() + "' (Conv1D): the number of input channels must be evenly divisible by the number of groups. Received groups=" +
                     std::to_string(o_.groups) + ", input shape " + s.to_string());
  compute_output_shape(s);
  kernel_ = add_weight("kernel", {kernel_size_, in / o_.groups, filters_},
                       {.initializer = o_.kernel_initializer, .regularizer = o_.kernel_regularizer,
                        .constraint = o_.kernel_constraint});
  if (o_.use_bias)
    bias_ = add_weight("bias", {filters_},
                       {.initializer = o_.bias_initializer, .regularizer = o_.bias_regularizer,
                        .constraint = o_.bias_constraint});
  set_input_spec({InputSpec{.min_ndim = 3, .max_ndim = 3, .axes = {{c_axis, in}}}});
}

Tensor Conv1DImpl::call(const Tensor& input, bool) {
  const bool cf = o_.data_format == "channels_first";
  Tensor x = cast_to_compute(input, dtype());
  if (cf) x = transpose(x, {0, 2, 1});
  std::string padding = o_.padding;
  if (padding == "causal") {
    // Zeros in front of the sequence, then a "valid" convolution.
    const int64_t pad = (kernel_size_ - 1) * o_.dilation_rate;
    if (pad > 0) x = concat({zeros({x.shape()[0], pad, x.shape()[2]}, x.dtype()), x}, 1);
    padding = "valid";
  }
  x = expand_dims(x, 1);  // (b, 1, steps, c)
  Tensor w = kernel_.value();
  w = reshape(w, {1, w.shape()[0], w.shape()[1], w.shape()[2]});
  ::kiln::Conv2DOptions co{{1, o_.strides}, padding, {1, o_.dilation_rate}};
  Tensor y;
  if (o_.groups == 1) {
    y = conv2d(x, w, co);
  } else {
    auto xs = split(x, o_.groups, 3);
    auto ws = split(w, o_.groups, 3);
    std::vector<Tensor> ys;
    for (int g = 0; g < o_.groups; ++g) ys.push_back(conv2d(xs[g], ws[g], co));
    y = concat(ys, 3);
  }
  y = squeeze(y, {1});
  if (o_.use_bias) y = y + bias_.value();
  if (cf) y = transpose(y, {0, 2, 1});
  return activation_(y);
}

Shape Conv1DImpl::compute_output_shape(const Shape& s) {
  if (s.rank() != 3)
    throw ShapeError("Layer '" + name() + "' (Conv1D) expects inputs of rank 3, but received input with shape " + s.to_string());
  const bool cf = o_.data_format == "channels_first";
  const int64_t steps = s[cf ? 2 : 1];
  const int64_t out = conv_output_length(steps, kernel_size_, o_.padding, o_.strides, o_.dilation_rate);
  if (steps >= 0 && out <= 0)
    throw ValueError("Layer '" + name() + "' (Conv1D): computed output size would be negative or zero. Received input shape " +
                     s.to_string() + ", kernel_size " + std::to_string(kernel_size_) + ", dilation_rate " +
                     std::to_string(o_.dilation_rate) + ", padding \"" + o_.padding + "\"");
  return cf ? Shape{s[0], filters_, out} : Shape{s[0], out, filters_};
}

Config Conv1DImpl::get_config() const {
  Config c = base_config();
  c["filters"] = filters_;
  c["kernel_size"] = Config::array({kernel_size_});
  c["strides"] = Config::array({o_.strides});
  c["padding"] = o_.padding;
  c["data_format"] = o_.data_format;
  c["dilation_rate"] = Config::array({o_.dilation_rate});
  c["groups"] = o_.groups;
  add_kernel_bias_config(c, o_);
  add_declared_shape(*this, c);
  return c;
}

std::shared_ptr<Conv1DImpl> Conv1DImpl::from_config(const Config& config) {
  ConfigReader r("Conv1D", config);
  Conv1DOptions o;
  r.base(o);
  o.strides = static_cast<int>(r.int_or_first("strides", 1));
  o.padding = r.string("padding", "valid");
  o.data_format = r.string("data_format", "channels_last");
  o.dilation_rate = static_cast<int>(r.int_or_first("dilation_rate", 1));
  o.groups = static_cast<int>(r.integer("groups", 1));
  o.activation = r.activation("activation", "linear");
  o.use_bias = r.boolean("use_bias", true);
  o.kernel_initializer = r.initializer("kernel_initializer", o.kernel_initializer);
  o.bias_initializer = r.initializer("bias_initializer", o.bias_initializer);
  o.kernel_regularizer = r.regularizer("kernel_regularizer");
  o.bias_regularizer = r.regularizer("bias_regularizer");
  o.activity_regularizer = r.regularizer("activity_regularizer");
  o.kernel_constraint = r.constraint("kernel_constraint");
  o.bias_constraint = r.constraint("bias_constraint");
  return std::make_shared<Conv1DImpl>(r.required_integer("filters"), r.int_or_first("kernel_size", 0), std::move(o));
}

}  // namespace kiln::layers

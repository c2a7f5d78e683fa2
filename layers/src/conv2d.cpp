// Conv2D through kiln::conv2d (im2col + GEMM); groups by splitting channels.
#include "kiln/layers/conv2d.h"

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/nn_ops.h"
#include "layer_utils.h"

namespace kiln::layers {

using namespace detail;

Conv2DImpl::Conv2DImpl(int64_t filters, Size2 kernel_size, Conv2DOptions o)
    : Layer(base_options(o)), filters_(filters), kernel_size_(kernel_size), o_(std::move(o)) {
  if (filters_ <= 0)
    throw ValueError("Conv2D: invalid value for argument `filters`, expected a positive integer, got " +
                     std::to_string(filters_));
  if (!kernel_size_.given())
    throw ValueError("Conv2D: `kernel_size` must be positive, got (" + std::to_string(kernel_size_.first) + ", " +
                     std::to_string(kernel_size_.second) + ")");
  if (!o_.strides.given() || !o_.dilation_rate.given())
    throw ValueError("Conv2D: `strides` and `dilation_rate` must be positive");
  if ((o_.strides.first > 1 || o_.strides.second > 1) && (o_.dilation_rate.first > 1 || o_.dilation_rate.second > 1))
    throw ValueError("Conv2D: `strides > 1` is not compatible with `dilation_rate > 1`");
  if (o_.groups <= 0 || filters_ % o_.groups != 0)
    throw ValueError("Conv2D: the number of filters must be evenly divisible by the number of groups. Received: groups=" +
                     std::to_string(o_.groups) + ", filters=" + std::to_string(filters_));
  o_.padding = check_padding("Conv2D", o_.padding, {"valid", "same"});
  o_.data_format = check_data_format("Conv2D", o_.data_format);
  activation_ = activations::get(o_.activation);
  if (o_.activation.empty()) o_.activation = "linear";
  activity_regularizer = o_.activity_regularizer;
  apply_input_shape(*this, o_);
  set_input_spec({InputSpec{.min_ndim = 4, .max_ndim = 4}});
}

void Conv2DImpl::build(const Shape& s) {
  const int64_t c_axis = o_.data_format == "channels_last" ? -1 : 1;
  const int64_t in = s[c_axis];
  if (in < 0)
    throw ValueError("Layer '" + name() + "' (Conv2D): the channel dimension of the inputs should be defined, but received input with shape " +
                     s.to_string());
  if (in % o_.groups != 0)
    throw ValueError("Layer '" + name() + "' (Conv2D): the number of input channels must be evenly divisible by the number of groups. Received groups=" +
                     std::to_string(o_.groups) + ", but the input has " + std::to_string(in) + " channels (full input shape is " +
                     s.to_string() + ")");
  compute_output_shape(s);  // throws if the output would be empty
  kernel_ = add_weight("kernel", {kernel_size_.first, kernel_size_.second, in / o_.groups, filters_},
                       {.initializer = o_.kernel_initializer, .regularizer = o_.kernel_regularizer,
                        .constraint = o_.kernel_constraint});
  if (o_.use_bias)
    bias_ = add_weight("bias", {filters_},
                       {.initializer = o_.bias_initializer, .regularizer = o_.bias_regularizer,
                        .constraint = o_.bias_constraint});
  set_input_spec({InputSpec{.min_ndim = 4, .max_ndim = 4, .axes = {{c_axis, in}}}});
}

Tensor Conv2DImpl::call(const Tensor& input, bool) {
  const bool cf = o_.data_format == "channels_first";
  Tensor x = cast_to_compute(input, dtype());
  if (cf) x = transpose(x, {0, 2, 3, 1});
  ::kiln::Conv2DOptions co{o_.strides.array(), o_.padding, o_.dilation_rate.array()};
  Tensor w = kernel_.value();
  Tensor y;
  const bool fused_relu = o_.activation == "relu";
  if (o_.groups == 1 && o_.use_bias && !cf) {
    // Bias (and a relu activation) applied in the convolution's output pass.
    y = conv2d_bias(x, w, bias_.value(), co, fused_relu);
    return fused_relu ? y : activation_(y);
  }
  if (o_.groups == 1) {
    y = conv2d(x, w, co);
  } else {
    // Group g sees input channels [g·in/G, (g+1)·in/G) and owns filters [g·F/G, (g+1)·F/G).
    auto xs = split(x, o_.groups, 3);
    auto ws = split(w, o_.groups, 3);
    std::vector<Tensor> ys;
    for (int g = 0; g < o_.groups; ++g) ys.push_back(conv2d(xs[g], ws[g], co));
    y = concat(ys, 3);
  }
  // Bias and a relu activation run as one fused pass.
  if (o_.use_bias && !cf && fused_relu) return bias_add(y, bias_.value(), true);
  if (o_.use_bias) y = bias_add(y, bias_.value());
  if (cf) y = transpose(y, {0, 3, 1, 2});
  return activation_(y);
}

Shape Conv2DImpl::compute_output_shape(const Shape& s) {
  if (s.rank() != 4)
    throw ShapeError("Layer '" + name() + "' (Conv2D) expects inputs of rank 4, but received input with shape " + s.to_string());
  const bool cf = o_.data_format == "channels_first";
  const int64_t h = s[cf ? 2 : 1], w = s[cf ? 3 : 2];
  const int64_t oh = conv_output_length(h, kernel_size_.first, o_.padding, o_.strides.first, o_.dilation_rate.first);
  const int64_t ow = conv_output_length(w, kernel_size_.second, o_.padding, o_.strides.second, o_.dilation_rate.second);
  if ((h >= 0 && oh <= 0) || (w >= 0 && ow <= 0))
    throw ValueError("Layer '" + name() + "' (Conv2D): computed output size would be negative or zero. Received input shape " +
                     s.to_string() + ", kernel_size (" + std::to_string(kernel_size_.first) + ", " +
                     std::to_string(kernel_size_.second) + "), dilation_rate (" + std::to_string(o_.dilation_rate.first) +
                     ", " + std::to_string(o_.dilation_rate.second) + "), padding \"" + o_.padding + "\"");
  return cf ? Shape{s[0], filters_, oh, ow} : Shape{s[0], oh, ow, filters_};
}

Config Conv2DImpl::get_config() const {
  Config c = base_config();
  c["filters"] = filters_;
  c["kernel_size"] = size2_json(kernel_size_);
  c["strides"] = size2_json(o_.strides);
  c["padding"] = o_.padding;
  c["data_format"] = o_.data_format;
  c["dilation_rate"] = size2_json(o_.dilation_rate);
  c["groups"] = o_.groups;
  add_kernel_bias_config(c, o_);
  add_declared_shape(*this, c);
  return c;
}

std::shared_ptr<Conv2DImpl> Conv2DImpl::from_config(const Config& config) {
  ConfigReader r("Conv2D", config);
  Conv2DOptions o;
  r.base(o);
  o.strides = r.size2("strides", 1);
  o.padding = r.string("padding", "valid");
  o.data_format = r.string("data_format", "channels_last");
  o.dilation_rate = r.size2("dilation_rate", 1);
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
  return std::make_shared<Conv2DImpl>(r.required_integer("filters"), r.size2("kernel_size", 0), std::move(o));
}

}  // namespace kiln::layers

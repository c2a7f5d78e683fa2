// keras.ops.conv, depthwise_conv and separable_conv on the 2D primitives: rank 1 runs
// as a 2D convolution over a unit height axis; rank 3 as one 2D convolution per
// kernel depth tap over the matching input depth slices (folded into the batch
// axis), summed. Groups (JAX's feature_group_count) split the channels.
#include <algorithm>

#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/keras_nn_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/nn_ops.h"
#include "kiln/ops/shape_ops.h"
#include "ops/keras_conv_args.h"

namespace kiln {

using namespace ops::spatial;

namespace {

Conv2DOptions plane_options(int64_t sh, int64_t sw, const std::string& padding, int64_t dh, int64_t dw) {
  return {{static_cast<int>(sh), static_cast<int>(sw)}, padding, {static_cast<int>(dh), static_cast<int>(dw)}};
}

// TF's "same" split along the depth axis (the extra zero goes after), as zeros.
Tensor pad_depth_same(const Tensor& x, int64_t kd, int64_t sd, int64_t dd) {
  const int64_t od = window_output_length(x.shape()[1], kd, "same", sd, dd);
  const int64_t total = std::max<int64_t>((od - 1) * sd + (kd - 1) * dd + 1 - x.shape()[1], 0);
  if (total == 0) return x;
  PadWidth widths(static_cast<std::size_t>(x.rank()), {0, 0});
  widths[1] = {total / 2, total - total / 2};
  return pad(x, widths);
}

Tensor conv3d_by_taps(Tensor x, const Tensor& kernel, const std::vector<int64_t>& st, const std::string& padding,
                      const std::vector<int64_t>& dil) {
  const int64_t kd = kernel.shape()[0];
  if (padding == "same") x = pad_depth_same(x, kd, st[0], dil[0]);
  const int64_t od = window_output_length(x.shape()[1], kd, "valid", st[0], dil[0]);
  const Shape s = x.shape();  // (b, D, H, W, C)
  const Conv2DOptions co = plane_options(st[1], st[2], padding, dil[1], dil[2]);
  const Shape tap_shape = kernel.shape().slice(1);  // (kh, kw, C_in, C_out)
  std::vector<Tensor> taps = split(kernel, kd, 0);
  Tensor y;
  for (int64_t t = 0; t < kd; ++t) {
    const int64_t from = t * dil[0];
    Tensor xs = from == 0 && st[0] == 1 && s[1] == od ? x : slice(x, {Slice(), Slice(from, from + (od - 1) * st[0] + 1, st[0])});
    Tensor part = conv2d(reshape(xs, {s[0] * od, s[2], s[3], s[4]}), reshape(taps[static_cast<std::size_t>(t)], tap_shape), co);
    y = t == 0 ? part : y + part;
  }
  return reshape(y, {s[0], od, y.shape()[1], y.shape()[2], y.shape()[3]});
}

// One group: channels_last x (b, *spatial, C_in), kernel (*k, C_in, C_out).
Tensor conv_one_group(const Tensor& x, const Tensor& kernel, const std::vector<int64_t>& st, const std::string& padding,
                      const std::vector<int64_t>& dil) {
  const int64_t rank = kernel.rank() - 2;
  if (rank == 2) return conv2d(x, kernel, plane_options(st[0], st[1], padding, dil[0], dil[1]));
  if (rank == 1) {
    const Shape k = kernel.shape();
    Tensor y = conv2d(expand_dims(x, 1), reshape(kernel, {1, k[0], k[1], k[2]}), plane_options(1, st[0], padding, 1, dil[0]));
    return squeeze(y, {1});
  }
  return conv3d_by_taps(x, kernel, st, padding, dil);
}

Tensor conv_channels_last(const char* op, const Tensor& x, const Tensor& kernel, const std::vector<int64_t>& st,
                          const std::string& padding, const std::vector<int64_t>& dil) {
  const int64_t channels = x.shape()[-1], k_in = kernel.shape()[-2], k_out = kernel.shape()[-1];
  if (k_in <= 0 || channels % k_in != 0)
    throw ValueError(std::string(op) + ": The number of input channels must be evenly divisible by kernel's "
                     "in_channels. Received input channels " + std::to_string(channels) + " and kernel in_channels " +
                     std::to_string(k_in) + " (inputs " + x.shape().to_string() + ", kernel " +
                     kernel.shape().to_string() + ")");
  const int64_t groups = channels / k_in;
  if (k_out % groups != 0)
    throw ValueError(std::string(op) + ": the kernel's out_channels (" + std::to_string(k_out) +
                     ") must be divisible by the number of groups (" + std::to_string(groups) + "); inputs " +
                     x.shape().to_string() + ", kernel " + kernel.shape().to_string());
  check_nonempty_output(op, x, kernel.shape().slice(0, kernel.rank() - 2), st, padding, dil);
  if (groups == 1) return conv_one_group(x, kernel, st, padding, dil);
  const int last = static_cast<int>(x.rank()) - 1;
  std::vector<Tensor> xs = split(x, groups, last), ws = split(kernel, groups, last), ys;
  for (std::size_t g = 0; g < xs.size(); ++g) ys.push_back(conv_one_group(xs[g], ws[g], st, padding, dil));
  return concat(ys, last);
}

void check_kernel_rank(const char* op, const Tensor& inputs, const Tensor& kernel) {
  if (kernel.rank() != inputs.rank())
    throw ShapeError(std::string(op) + ": expected a kernel of rank " + std::to_string(inputs.rank()) +
                     " (spatial axes, then two channel axes) for inputs of shape " + inputs.shape().to_string() +
                     ", but received a kernel of shape " + kernel.shape().to_string());
  if (!is_floating(kernel.dtype()))
    throw TypeError(std::string(op) + ": expected a float32 or float64 kernel, but received " +
                    dtype_name(kernel.dtype()) + " with shape " + kernel.shape().to_string());
}

}  // namespace

Tensor conv(const Tensor& inputs, const Tensor& kernel, const ConvArgs& args) {
  const int rank = spatial_rank("conv", inputs);
  check_kernel_rank("conv", inputs, kernel);
  const bool cf = is_channels_first("conv", args.data_format);
  check_padding("conv", args.padding);
  const auto st = per_axis("conv", "strides", args.strides, rank);
  const auto dil = per_axis("conv", "dilation_rate", args.dilation_rate, rank);
  Tensor x = as_dtype(inputs, kernel.dtype());
  Tensor y = conv_channels_last("conv", cf ? to_last(x) : x, kernel, st, args.padding, dil);
  return cf ? to_first(y) : y;
}

Tensor depthwise_conv(const Tensor& inputs, const Tensor& kernel, const ConvArgs& args) {
  const int rank = spatial_rank("depthwise_conv", inputs);
  check_kernel_rank("depthwise_conv", inputs, kernel);
  const bool cf = is_channels_first("depthwise_conv", args.data_format);
  check_padding("depthwise_conv", args.padding);
  const auto st = per_axis("depthwise_conv", "strides", args.strides, rank);
  const auto dil = per_axis("depthwise_conv", "dilation_rate", args.dilation_rate, rank);
  Tensor x = as_dtype(cf ? to_last(inputs) : inputs, kernel.dtype());
  const int64_t c = x.shape()[-1];
  const Shape ks = kernel.shape();
  if (ks[-2] != c)
    throw ValueError("depthwise_conv: the kernel's in_channels (axis -2 of kernel shape " + ks.to_string() +
                     ") must equal the input channels (" + std::to_string(c) + " in inputs of shape " +
                     inputs.shape().to_string() + ")");
  check_nonempty_output("depthwise_conv", x, ks.slice(0, ks.rank() - 2), st, args.padding, dil);
  Tensor y;
  if (rank == 2) {
    y = depthwise_conv2d(x, kernel, plane_options(st[0], st[1], args.padding, dil[0], dil[1]));
  } else if (rank == 1) {
    y = squeeze(depthwise_conv2d(expand_dims(x, 1), reshape(kernel, {1, ks[0], ks[1], ks[2]}),
                                 plane_options(1, st[0], args.padding, 1, dil[0])),
                {1});
  } else {  // one group per input channel, its M kernels contiguous (JAX's reshape)
    Shape grouped = ks.slice(0, 3);
    grouped.push_back(1);
    grouped.push_back(ks[3] * ks[4]);
    y = conv_channels_last("depthwise_conv", x, reshape(kernel, grouped), st, args.padding, dil);
  }
  return cf ? to_first(y) : y;
}

Tensor separable_conv(const Tensor& inputs, const Tensor& depthwise_kernel, const Tensor& pointwise_kernel,
                      const ConvArgs& args) {
  Tensor mid = depthwise_conv(inputs, depthwise_kernel, args);
  return conv(mid, pointwise_kernel, {{1}, "valid", args.data_format, args.dilation_rate});
}

}  // namespace kiln

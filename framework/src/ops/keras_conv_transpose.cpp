// keras.ops.conv_transpose as jax.lax.conv_transpose computes it (Keras 3's JAX
// backend): the input dilated by the stride, padded as Keras converts its padding
// (a negative amount crops), then a stride-1 convolution with the kernel flipped
// in space and its two channel axes swapped.
#include <algorithm>
#include <array>
#include <optional>

#include "autodiff/autodiff.h"
#include "backend/portable_trace.h"
#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/keras_nn_ops.h"
#include "kiln/ops/shape_ops.h"
#include "ops/conv2d_params_ops.h"
#include "ops/half_compute.h"
#include "ops/keras_conv_args.h"
#include "ops/op_util.h"

namespace kiln {

using namespace ops;
using namespace ops::spatial;

namespace {

struct AxisPadding {
  int64_t left, right;  // of the dilated input; negative: cropping
};

// Keras's _convert_conv_transpose_padding_args_from_keras_to_jax for one axis.
AxisPadding transpose_padding(int64_t k, int64_t stride, int64_t dilation, const std::string& padding,
                              std::optional<int64_t> output_padding) {
  const int64_t ke = (k - 1) * dilation + 1;
  if (padding == "valid") {
    const int64_t extra = output_padding ? *output_padding : std::max(ke, stride) - ke;
    return {ke - 1, ke - 1 + extra};
  }
  const int64_t len = output_padding ? ke + ke % 2 - 2 + *output_padding : stride + ke - 2;
  const int64_t left = std::min(len / 2 + len % 2, ke - 1);
  return {left, len - left};
}

// stride - 1 zeros between neighbours along `axis`: L -> (L - 1)·stride + 1.
Tensor dilate_axis(const Tensor& x, int axis, int64_t stride) {
  if (stride == 1) return x;
  const Shape s = x.shape();
  Shape zs = s;
  zs.dims().insert(zs.dims().begin() + axis + 1, stride - 1);
  Tensor z = concat({expand_dims(x, axis + 1), zeros(zs, x.dtype()).to(x.device())}, axis + 1);
  Shape flat = s;
  flat[axis] = s[axis] * stride;
  std::vector<Index> idx(static_cast<std::size_t>(axis), Slice());
  idx.push_back(Slice(0, (s[axis] - 1) * stride + 1));
  return slice(reshape(z, flat), idx);
}

// Zeros before and after along `axis`, or cropping where an amount is negative.
Tensor pad_or_crop_axis(Tensor x, int axis, int64_t left, int64_t right) {
  std::vector<Index> idx(static_cast<std::size_t>(axis), Slice());
  const int64_t n = x.shape()[axis];
  if (left < 0 || right < 0) {
    idx.push_back(Slice(std::max<int64_t>(-left, 0), n - std::max<int64_t>(-right, 0)));
    x = slice(x, idx);
  }
  if (left > 0 || right > 0) {
    PadWidth widths(static_cast<std::size_t>(x.rank()), {0, 0});
    widths[static_cast<std::size_t>(axis)] = {std::max<int64_t>(left, 0), std::max<int64_t>(right, 0)};
    x = pad(x, widths);
  }
  return x;
}

// A 2-D transposed convolution (and a 1-D one, as 2-D of height 1) is the input gradient of the convolution it
// transposes: one backend pass, where the composed form dilates the input with
// zeros (stride^2 times the pixels) and convolves that. Output pixel o gets
// x[j] k[t] where o = j s + t d - (ke - 1 - left), which is conv2d's
// backward-input rule with that top padding. Not taken where the far-side
// padding would be negative (an output_padding that reaches past the
// convolution), nor for graphs written out for ONNX, which keep the portable ops.
std::optional<Tensor> conv2d_transpose_direct(const Tensor& x, const Tensor& kernel, const std::array<AxisPadding, 2>& pads,
                                              const std::vector<int64_t>& st, const std::vector<int64_t>& dil) {
  if (backend::portable_trace()) return std::nullopt;
  const Shape& xs = x.shape();
  const Shape& ks = kernel.shape();
  backend::Conv2DParams p{};
  p.n = xs[0], p.oh = xs[1], p.ow = xs[2], p.c_out = xs[3];
  p.kh = ks[0], p.kw = ks[1], p.c_in = ks[2];
  p.stride_h = static_cast<int>(st[0]), p.stride_w = static_cast<int>(st[1]);
  p.dil_h = static_cast<int>(dil[0]), p.dil_w = static_cast<int>(dil[1]);
  const int64_t keh = (p.kh - 1) * p.dil_h + 1, kew = (p.kw - 1) * p.dil_w + 1;
  p.pad_top = keh - 1 - pads[0].left;
  p.pad_left = kew - 1 - pads[1].left;
  p.h = (p.oh - 1) * p.stride_h + 1 + pads[0].left + pads[0].right - (keh - 1);
  p.w = (p.ow - 1) * p.stride_w + 1 + pads[1].left + pads[1].right - (kew - 1);
  if (p.h <= 0 || p.w <= 0 || p.pad_top < 0 || p.pad_left < 0 || pads[0].right > keh - 1 || pads[1].right > kew - 1)
    return std::nullopt;
  Tensor y = Tensor::empty(Shape{p.n, p.h, p.w, p.c_in}, x.dtype(), x.device());
  be(x).conv2d_backward_input(x, kernel, p, y);
  if (autodiff::active())
    autodiff::record("Conv2DTranspose", {x, kernel}, {y}, [x, kernel, p](const Grads& dy, const Needs& n) {
      return Grads{n[0] ? ops::conv2d_with_params(dy[0], kernel, p) : Tensor(),
                   n[1] ? ops::conv2d_backward_filter(dy[0], x, p) : Tensor()};
    });
  return y;
}

}  // namespace

int64_t conv_transpose_output_length(int64_t length, int64_t kernel, int64_t stride, int64_t dilation,
                                     const std::string& padding, std::optional<int64_t> output_padding) {
  if (length < 0) return length;
  const int64_t ke = (kernel - 1) * dilation + 1;
  if (!output_padding) return padding == "valid" ? length * stride + std::max<int64_t>(ke - stride, 0) : length * stride;
  return (length - 1) * stride + ke - 2 * (padding == "same" ? ke / 2 : 0) + *output_padding;
}

Tensor conv_transpose(const Tensor& inputs, const Tensor& kernel, const ConvTransposeArgs& args) {
  KILN_HALF_IN_FLOAT32(conv_transpose, inputs, kernel, args);
  const char* op = "conv_transpose";
  const int rank = spatial_rank(op, inputs);
  if (kernel.rank() != inputs.rank() || !is_floating(kernel.dtype()))
    throw ShapeError(std::string(op) + ": expected a float kernel of rank " + std::to_string(inputs.rank()) +
                     " (spatial axes, out_channels, in_channels) for inputs of shape " + inputs.shape().to_string() +
                     ", but received a " + dtype_name(kernel.dtype()) + " kernel of shape " + kernel.shape().to_string());
  const bool cf = is_channels_first(op, args.data_format);
  check_padding(op, args.padding);
  const auto st = per_axis(op, "strides", args.strides, rank);
  const auto dil = per_axis(op, "dilation_rate", args.dilation_rate, rank);
  std::optional<std::vector<int64_t>> out_pad;
  if (args.output_padding) {
    out_pad = args.output_padding->size() == 1 ? std::vector<int64_t>(static_cast<std::size_t>(rank), (*args.output_padding)[0])
                                                : *args.output_padding;
    if (static_cast<int>(out_pad->size()) != rank)
      throw ValueError(std::string(op) + ": `output_padding` must hold one value or " + std::to_string(rank) +
                       ", but received " + std::to_string(args.output_padding->size()));
  }
  Tensor x = as_dtype(cf ? to_last(inputs) : inputs, kernel.dtype());
  const Shape ks = kernel.shape();
  if (x.shape()[-1] != ks[-1])
    throw ValueError(std::string(op) + ": the kernel's in_channels (last axis of kernel shape " + ks.to_string() +
                     ") must equal the input channels (" + std::to_string(x.shape()[-1]) + " in inputs of shape " +
                     inputs.shape().to_string() + ")");
  std::vector<AxisPadding> pads;
  for (int i = 0; i < rank; ++i)
    pads.push_back(transpose_padding(ks[i], st[static_cast<std::size_t>(i)], dil[static_cast<std::size_t>(i)], args.padding,
                                     out_pad ? std::optional<int64_t>((*out_pad)[static_cast<std::size_t>(i)]) : std::nullopt));
  if (rank == 2)
    if (auto y = conv2d_transpose_direct(x, kernel, {pads[0], pads[1]}, st, dil)) return cf ? to_first(*y) : *y;
  if (rank == 1) {  // as 2-D with a height of 1
    const Shape xs = x.shape();
    if (auto y = conv2d_transpose_direct(reshape(x, Shape{xs[0], 1, xs[1], xs[2]}), expand_dims(kernel, 0),
                                         {AxisPadding{0, 0}, pads[0]}, {1, st[0]}, {1, dil[0]})) {
      Tensor out = squeeze(*y, std::vector<int>{1});
      return cf ? to_first(out) : out;
    }
  }
  for (int i = 0; i < rank; ++i) {
    const AxisPadding& p = pads[static_cast<std::size_t>(i)];
    x = pad_or_crop_axis(dilate_axis(x, i + 1, st[static_cast<std::size_t>(i)]), i + 1, p.left, p.right);
  }
  // (*k, out, in) flipped in space -> (*k, in, out).
  std::vector<int> spatial(static_cast<std::size_t>(rank));
  for (int i = 0; i < rank; ++i) spatial[static_cast<std::size_t>(i)] = i;
  Tensor w = swapaxes(flip(kernel, spatial), rank, rank + 1);
  Tensor y = conv(x, w, {{1}, "valid", "channels_last", dil});
  return cf ? to_first(y) : y;
}

}  // namespace kiln

// conv_nd: rank 1 runs as a 2D convolution over a unit height axis; rank 3 as
// one 2D convolution per kernel depth tap over the matching input depth
// slices (folded into the batch axis), summed.
#include "conv_nd.h"

#include <algorithm>

#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/nn_ops.h"
#include "layer_utils.h"

namespace kiln::layers::detail {

namespace {

Tensor conv3d_by_taps(Tensor x, const Tensor& kernel, const std::vector<int64_t>& strides, const std::string& padding,
                      const std::vector<int64_t>& dilation) {
  const int64_t kd = kernel.shape()[0], sd = strides[0], dd = dilation[0];
  const int64_t od = conv_output_length(x.shape()[1], kd, padding, sd, dd);
  if (padding == "same") {  // TF's split of the depth padding: the extra zero goes after
    const int64_t total = std::max<int64_t>((od - 1) * sd + (kd - 1) * dd + 1 - x.shape()[1], 0);
    auto depth_zeros = [&](int64_t n) {
      Shape z = x.shape();
      z[1] = n;
      return zeros(z, x.dtype());
    };
    std::vector<Tensor> parts;
    if (total / 2 > 0) parts.push_back(depth_zeros(total / 2));
    parts.push_back(x);
    if (total - total / 2 > 0) parts.push_back(depth_zeros(total - total / 2));
    if (parts.size() > 1) x = concat(parts, 1);
  }
  const Shape s = x.shape();  // (b, D, H, W, C)
  const ::kiln::Conv2DOptions co{{static_cast<int>(strides[1]), static_cast<int>(strides[2])},
                                 padding,
                                 {static_cast<int>(dilation[1]), static_cast<int>(dilation[2])}};
  const Shape tap_shape = kernel.shape().slice(1);  // (kh, kw, C_in, C_out)
  std::vector<Tensor> taps = split(kernel, kd, 0);
  Tensor y;
  for (int64_t t = 0; t < kd; ++t) {
    Tensor xs = kd == 1 && sd == 1 && x.shape()[1] == od ? x
                                                          : slice(x, {Slice(), Slice(t * dd, t * dd + (od - 1) * sd + 1, sd)});
    Tensor part = conv2d(reshape(xs, {s[0] * od, s[2], s[3], s[4]}),
                         reshape(taps[static_cast<std::size_t>(t)], tap_shape), co);
    y = t == 0 ? part : y + part;
  }
  return reshape(y, {s[0], od, y.shape()[1], y.shape()[2], y.shape()[3]});
}

}  // namespace

Tensor conv_nd(const Tensor& x, const Tensor& kernel, const std::vector<int64_t>& strides, const std::string& padding,
               const std::vector<int64_t>& dilation) {
  const int64_t rank = kernel.rank() - 2;
  if (rank < 1 || rank > 3 || x.rank() != rank + 2 || static_cast<int64_t>(strides.size()) != rank ||
      static_cast<int64_t>(dilation.size()) != rank)
    throw ShapeError("conv_nd: a rank-" + std::to_string(rank) + " kernel " + kernel.shape().to_string() +
                     " cannot convolve an input of shape " + x.shape().to_string());
  if (rank == 2)
    return conv2d(x, kernel,
                  {{static_cast<int>(strides[0]), static_cast<int>(strides[1])},
                   padding,
                   {static_cast<int>(dilation[0]), static_cast<int>(dilation[1])}});
  if (rank == 1) {
    const Shape k = kernel.shape();
    Tensor y = conv2d(expand_dims(x, 1), reshape(kernel, {1, k[0], k[1], k[2]}),
                      {{1, static_cast<int>(strides[0])}, padding, {1, static_cast<int>(dilation[0])}});
    return squeeze(y, {1});
  }
  return conv3d_by_taps(x, kernel, strides, padding, dilation);
}

}  // namespace kiln::layers::detail

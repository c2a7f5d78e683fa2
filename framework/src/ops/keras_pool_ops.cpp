// keras.ops.max_pool and average_pool on the 2D pools: rank 1 over a unit height
// axis; rank 3 as (H, W) for every depth slice, then depth. Both reductions are
// separable over a box window (a window's real part is a product of per-axis
// ranges, so "same" averaging over real elements factors too).
#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/keras_nn_ops.h"
#include "kiln/ops/nn_ops.h"
#include "ops/keras_conv_args.h"

namespace kiln {

using namespace ops::spatial;

namespace {

Pool2DOptions plane(int64_t ph, int64_t pw, int64_t sh, int64_t sw, const std::string& padding) {
  return {{static_cast<int>(ph), static_cast<int>(pw)}, {static_cast<int>(sh), static_cast<int>(sw)}, padding};
}

Tensor pool(const char* op, bool is_max, const Tensor& inputs, const std::vector<int64_t>& pool_size, const PoolArgs& args) {
  const int rank = spatial_rank(op, inputs);
  const bool cf = is_channels_first(op, args.data_format);
  check_padding(op, args.padding);
  if (!is_floating(inputs.dtype()))
    throw TypeError(std::string(op) + ": expected float32 or float64 inputs, but received " + dtype_name(inputs.dtype()) +
                    " with shape " + inputs.shape().to_string());
  const auto ps = per_axis(op, "pool_size", pool_size, rank);
  const auto st = per_axis(op, "strides", args.strides.empty() ? pool_size : args.strides, rank);
  Tensor x = cf ? to_last(inputs) : inputs;
  check_nonempty_output(op, x, Shape(ps), st, args.padding, std::vector<int64_t>(static_cast<std::size_t>(rank), 1));
  auto run = [&](const Tensor& t, const Pool2DOptions& o) { return is_max ? max_pool2d(t, o) : avg_pool2d(t, o); };
  Tensor y;
  if (rank == 2) {
    y = run(x, plane(ps[0], ps[1], st[0], st[1], args.padding));
  } else if (rank == 1) {
    y = squeeze(run(expand_dims(x, 1), plane(1, ps[0], 1, st[0], args.padding)), {1});
  } else {
    const Shape s = x.shape();  // (b, D, H, W, C)
    Tensor hw = run(reshape(x, {s[0] * s[1], s[2], s[3], s[4]}), plane(ps[1], ps[2], st[1], st[2], args.padding));
    const int64_t oh = hw.shape()[1], ow = hw.shape()[2];
    Tensor d = run(reshape(hw, {s[0], s[1], oh * ow, s[4]}), plane(ps[0], 1, st[0], 1, args.padding));
    y = reshape(d, {s[0], d.shape()[1], oh, ow, s[4]});
  }
  return cf ? to_first(y) : y;
}

}  // namespace

Tensor max_pool(const Tensor& inputs, const std::vector<int64_t>& pool_size, const PoolArgs& args) {
  return pool("max_pool", true, inputs, pool_size, args);
}

Tensor average_pool(const Tensor& inputs, const std::vector<int64_t>& pool_size, const PoolArgs& args) {
  return pool("average_pool", false, inputs, pool_size, args);
}

}  // namespace kiln

// keras.ops.pad (kiln/ops/shape_ops.h): one axis at a time, constant padding
// by concatenating filled blocks, the mirrored and repeated modes by gathering
// along the axis with indices computed here.
#include <algorithm>
#include <string>

#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/shape_ops.h"
#include "ops/compose_util.h"
#include "ops/op_util.h"

namespace kiln {

namespace {

/// The source index along an axis of length n for output position i - before.
int64_t pad_source(const std::string& mode, int64_t i, int64_t n) {
  auto wrap = [](int64_t v, int64_t p) { return ((v % p) + p) % p; };
  if (mode == "edge") return std::min(std::max(i, int64_t{0}), n - 1);
  if (mode == "wrap") return wrap(i, n);
  if (mode == "symmetric") {
    const int64_t j = wrap(i, 2 * n);
    return j < n ? j : 2 * n - 1 - j;
  }
  if (n == 1) return 0;  // reflect
  const int64_t j = wrap(i, 2 * (n - 1));
  return j < n ? j : 2 * (n - 1) - j;
}

Tensor pad_axis(const Tensor& x, int axis, int64_t before, int64_t after, const std::string& mode, double value) {
  const int64_t n = x.shape()[axis];
  if (mode == "constant") {
    std::vector<Tensor> parts;
    auto filled = [&](int64_t len) {
      std::vector<int64_t> d = x.shape().dims();
      d[static_cast<std::size_t>(axis)] = len;
      return fill(Shape(d), value, x.dtype()).to(x.device());
    };
    if (before > 0) parts.push_back(filled(before));
    parts.push_back(x);
    if (after > 0) parts.push_back(filled(after));
    return parts.size() == 1 ? x : concat(parts, axis);
  }
  if (n == 0 && before + after > 0)
    throw ValueError("pad: can't extend the empty axis " + std::to_string(axis) + " of " + ops::describe(x) +
                     " in mode '" + mode + "'");
  std::vector<int64_t> at;
  for (int64_t i = -before; i < n + after; ++i) at.push_back(pad_source(mode, i, n));
  return gather(x, ops::index_tensor(at, x.device()), axis);
}

}  // namespace

Tensor pad(const Tensor& x, const PadWidth& pad_width, const std::string& mode, std::optional<double> constant_values) {
  if (mode != "constant" && mode != "reflect" && mode != "symmetric" && mode != "edge" && mode != "wrap")
    throw ValueError("pad: unsupported mode '" + mode + "'; expected one of constant, reflect, symmetric, edge, wrap");
  if (constant_values && mode != "constant")
    throw ValueError("pad: Argument `constant_values` can only be provided when `mode == 'constant'`. Received: mode=" +
                     mode);
  if (pad_width.size() != 1 && static_cast<int64_t>(pad_width.size()) != x.rank())
    throw ValueError("pad: `pad_width` must have the same length as `x.shape`. Received: pad_width of length " +
                     std::to_string(pad_width.size()) + " and x.shape=" + x.shape().to_string());
  Tensor y = x;
  for (int a = 0; a < x.rank(); ++a) {
    const auto [before, after] = pad_width[pad_width.size() == 1 ? 0 : static_cast<std::size_t>(a)];
    if (before < 0 || after < 0)
      throw ValueError("pad: pad widths must be non-negative, but received (" + std::to_string(before) + ", " +
                       std::to_string(after) + ") for axis " + std::to_string(a));
    if (before == 0 && after == 0) continue;
    y = pad_axis(y, a, before, after, mode, constant_values.value_or(0.0));
  }
  return y.same_as(x) ? identity(x) : y;
}

}  // namespace kiln

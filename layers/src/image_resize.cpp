// Axis-wise resizing: gather for nearest, a (out, in) weight matrix for linear.
#include "image_resize.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"

namespace kiln::layers::detail {

namespace {
// (pre, n, post) around `axis`.
Shape three_axes(const Shape& s, int axis) {
  int64_t pre = 1, post = 1;
  for (int i = 0; i < axis; ++i) pre *= s[i];
  for (int64_t i = axis + 1; i < s.rank(); ++i) post *= s[i];
  return Shape{pre, s[axis], post};
}
}  // namespace

Tensor resize_axis_nearest(const Tensor& x, int axis, int64_t out) {
  const int64_t in = x.shape()[axis];
  if (in == out) return x;
  std::vector<int32_t> idx(static_cast<std::size_t>(out));
  for (int64_t i = 0; i < out; ++i) {
    const float offset = (static_cast<float>(i) + 0.5f) * static_cast<float>(in) / static_cast<float>(out);
    idx[static_cast<std::size_t>(i)] = static_cast<int32_t>(std::floor(offset));
  }
  return gather(x, Tensor(idx, Shape{out}), axis);
}

Tensor resize_axis_linear(const Tensor& x, int axis, int64_t out) {
  const int64_t in = x.shape()[axis];
  if (in == out) return x;
  std::vector<double> w(static_cast<std::size_t>(out * in), 0.0);
  for (int64_t i = 0; i < out; ++i) {
    const double s = (static_cast<double>(i) + 0.5) * static_cast<double>(in) / static_cast<double>(out) - 0.5;
    double total = 0;
    for (int64_t j = 0; j < in; ++j) total += std::max(0.0, 1.0 - std::abs(s - static_cast<double>(j)));
    for (int64_t j = 0; j < in; ++j)
      w[static_cast<std::size_t>(i * in + j)] = std::max(0.0, 1.0 - std::abs(s - static_cast<double>(j))) / total;
  }
  const Shape s = x.shape();
  const Shape s3 = three_axes(s, axis);
  Tensor weights = cast(Tensor(w, Shape{out, in}), x.dtype());
  Tensor y = matmul(weights, reshape(x, s3));  // (out, in) @ (pre, in, post) -> (pre, out, post)
  Shape out_shape = s;
  out_shape[axis] = out;
  return reshape(y, out_shape);
}

Tensor repeat_axis(const Tensor& x, int axis, int64_t times) {
  if (times == 1) return x;
  const Shape s = x.shape();
  Shape expanded = s;
  expanded.dims().insert(expanded.dims().begin() + axis + 1, times);
  Shape out = s;
  out[axis] = s[axis] * times;
  return reshape(broadcast_to(expand_dims(x, axis + 1), expanded), out);
}

Tensor crop_axis(const Tensor& x, int axis, int64_t start, int64_t size) {
  std::vector<Index> idx(static_cast<std::size_t>(axis), Index(Slice()));
  idx.push_back(Slice(start, start + size));
  return slice(x, idx);
}

}  // namespace kiln::layers::detail

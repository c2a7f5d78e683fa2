// The transposed-convolution plan shared by the ConvTranspose layers.
#include "conv_transpose_plan.h"

#include <algorithm>
#include <vector>

#include "kiln/ops/array_ops.h"
#include "image_resize.h"

namespace kiln::layers::detail {

TransposeAxisPlan plan_transpose_axis(int64_t k, int64_t stride, int64_t dilation, const std::string& padding,
                                      std::optional<int64_t> output_padding) {
  const int64_t ke = (k - 1) * dilation + 1;
  TransposeAxisPlan p{stride, k, dilation, 0, 0};
  if (padding == "valid") {
    const int64_t op = output_padding ? *output_padding : std::max(ke, stride) - ke;
    p.left = ke - 1;
    p.right = ke - 1 + op;
  } else {
    const int64_t len = output_padding ? ke + ke % 2 - 2 + *output_padding : stride + ke - 2;
    p.left = std::min(len / 2 + len % 2, ke - 1);
    p.right = len - p.left;
  }
  return p;
}

int64_t transpose_output_length(int64_t in, int64_t k, int64_t stride, int64_t dilation, const std::string& padding,
                                std::optional<int64_t> output_padding) {
  if (in < 0) return in;
  const int64_t ke = (k - 1) * dilation + 1;
  if (!output_padding) return padding == "valid" ? in * stride + std::max<int64_t>(ke - stride, 0) : in * stride;
  return (in - 1) * stride + ke - 2 * (padding == "same" ? ke / 2 : 0) + *output_padding;
}

Tensor dilate_axis(const Tensor& x, int axis, int64_t stride) {
  if (stride == 1) return x;
  const Shape s = x.shape();
  Shape zs = s;
  zs.dims().insert(zs.dims().begin() + axis + 1, stride - 1);
  Tensor z = concat({expand_dims(x, axis + 1), zeros(zs, x.dtype())}, axis + 1);
  Shape flat = s;
  flat[axis] = s[axis] * stride;
  return crop_axis(reshape(z, flat), axis, 0, (s[axis] - 1) * stride + 1);
}

Tensor pad_axis(const Tensor& x, int axis, int64_t left, int64_t right) {
  std::vector<Tensor> parts;
  Shape zs = x.shape();
  if (left > 0) {
    zs[axis] = left;
    parts.push_back(zeros(zs, x.dtype()));
  }
  parts.push_back(left < 0 ? crop_axis(x, axis, -left, x.shape()[axis] + left) : x);
  if (right > 0) {
    zs[axis] = right;
    parts.push_back(zeros(zs, x.dtype()));
  }
  Tensor y = parts.size() == 1 ? parts[0] : concat(parts, axis);
  return right < 0 ? crop_axis(y, axis, 0, y.shape()[axis] + right) : y;
}

Tensor reverse_axis(const Tensor& x, int axis) {
  const int64_t n = x.shape()[axis];
  if (n <= 1) return x;
  std::vector<int32_t> rev(static_cast<std::size_t>(n));
  for (int64_t j = 0; j < n; ++j) rev[static_cast<std::size_t>(j)] = static_cast<int32_t>(n - 1 - j);
  return gather(x, Tensor(rev, Shape{n}), axis);
}

}  // namespace kiln::layers::detail

// The Gaussian blur of the image augmentation layers (the JAX backend's
// keras.ops.image.gaussian_blur), as two one-axis passes of differentiable ops.
#include <cmath>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "random_image_utils.h"

namespace kiln::layers::detail {

namespace {

// Cross-correlates `x` with the symmetric `kernel` along `axis`, zeros beyond the edges.
Tensor blur_axis(const Tensor& x, const std::vector<double>& kernel, int axis) {
  const int64_t n = x.shape()[axis], radius = (static_cast<int64_t>(kernel.size()) - 1) / 2;
  Tensor padded = x;
  if (radius > 0) {
    Shape edge = x.shape();
    edge.dims()[static_cast<std::size_t>(axis)] = radius;
    padded = concat({zeros(edge, x.dtype()), x, zeros(edge, x.dtype())}, axis);
  }
  Tensor out;
  for (std::size_t i = 0; i < kernel.size(); ++i) {
    std::vector<Index> window(static_cast<std::size_t>(x.rank()), Slice());
    window[static_cast<std::size_t>(axis)] = Slice(static_cast<int64_t>(i), static_cast<int64_t>(i) + n);
    const Tensor term = slice(padded, window) * kernel[i];
    out = out.defined() ? out + term : term;
  }
  return out;
}

}  // namespace

std::vector<double> gaussian_kernel1d(int size, double sigma) {
  std::vector<double> k(static_cast<std::size_t>(size));
  double total = 0.0;
  for (int i = 0; i < size; ++i) {
    const double x = (i - (size - 1) / 2.0) / sigma;
    k[static_cast<std::size_t>(i)] = std::exp(-0.5 * x * x);
    total += k[static_cast<std::size_t>(i)];
  }
  for (double& v : k) v /= total;
  return k;
}

Tensor gaussian_blur(const Tensor& images, const std::vector<double>& kernel_x, const std::vector<double>& kernel_y) {
  return blur_axis(blur_axis(images, kernel_x, 2), kernel_y, 1);
}

}  // namespace kiln::layers::detail

// Adaptive pooling, one spatial axis at a time (both reductions are separable over box
// windows): the mean as a (out, in) averaging matrix, the max bin by bin.
#include "kiln/layers/adaptive_pooling.h"

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "config_fields.h"
#include "image_resize.h"

namespace kiln::layers {

using namespace detail;

namespace {

struct Bin {
  int64_t start, size;
};
Bin bin(int64_t i, int64_t in, int64_t out) {
  const int64_t start = (i * in) / out;                 // floor
  const int64_t end = ((i + 1) * in + out - 1) / out;  // ceil
  return {start, end - start};
}

Tensor adaptive_axis(const Tensor& x, int axis, int64_t out, bool is_max) {
  const int64_t in = x.shape()[axis];
  if (is_max) {
    std::vector<Tensor> parts;
    for (int64_t i = 0; i < out; ++i) {
      const Bin b = bin(i, in, out);
      parts.push_back(max(crop_axis(x, axis, b.start, b.size), {axis}, true));
    }
    return parts.size() == 1 ? parts[0] : concat(parts, axis);
  }
  std::vector<double> w(static_cast<std::size_t>(out * in), 0.0);
  for (int64_t i = 0; i < out; ++i) {
    const Bin b = bin(i, in, out);
    for (int64_t j = b.start; j < b.start + b.size; ++j) w[static_cast<std::size_t>(i * in + j)] = 1.0 / static_cast<double>(b.size);
  }
  const Shape s = x.shape();
  int64_t pre = 1, post = 1;
  for (int i = 0; i < axis; ++i) pre *= s[i];
  for (int64_t i = axis + 1; i < s.rank(); ++i) post *= s[i];
  Tensor y = matmul(cast(Tensor(w, Shape{out, in}), x.dtype()), reshape(x, {pre, in, post}));
  Shape out_shape = s;
  out_shape[axis] = out;
  return reshape(y, out_shape);
}

}  // namespace

AdaptivePoolingImpl::AdaptivePoolingImpl(int rank, bool is_max, std::vector<int> output_size, AdaptivePoolingOptions o)
    : Layer(base_options(o)), rank_(rank), is_max_(is_max), output_size_(std::move(output_size)), o_(std::move(o)) {
  const std::string cls = class_name();
  if (output_size_.size() == 1) output_size_.assign(static_cast<std::size_t>(rank_), output_size_[0]);
  bool ok = output_size_.size() == static_cast<std::size_t>(rank_);
  for (int v : output_size_) ok = ok && v > 0;
  if (!ok) throw ValueError(cls + ": `output_size` must be a positive int or " + std::to_string(rank_) + " positive ints");
  o_.data_format = check_data_format(cls, o_.data_format);
  apply_input_shape(*this, o_);
  set_input_spec({InputSpec{.ndim = rank_ + 2}});
}

std::string AdaptivePoolingImpl::class_name() const {
  return std::string(is_max_ ? "AdaptiveMaxPooling" : "AdaptiveAveragePooling") + std::to_string(rank_) + "D";
}

Tensor AdaptivePoolingImpl::call(const Tensor& input, bool) {
  Tensor x = cast_input(input, dtype());
  const int first = o_.data_format == "channels_first" ? 2 : 1;
  for (int i = 0; i < rank_; ++i) x = adaptive_axis(x, first + i, output_size_[static_cast<std::size_t>(i)], is_max_);
  return x;
}

Shape AdaptivePoolingImpl::compute_output_shape(const Shape& s) {
  if (s.rank() != rank_ + 2)
    throw ShapeError("Layer '" + name() + "' (" + class_name() + ") expects inputs of rank " + std::to_string(rank_ + 2) +
                     ", but received input with shape " + s.to_string());
  Shape out = s;
  const int first = o_.data_format == "channels_first" ? 2 : 1;
  for (int i = 0; i < rank_; ++i) out[first + i] = output_size_[static_cast<std::size_t>(i)];
  return out;
}

Config AdaptivePoolingImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(AdaptiveAveragePooling1DImpl, "AdaptiveAveragePooling1D")
KILN_REGISTER_LAYER(AdaptiveAveragePooling2DImpl, "AdaptiveAveragePooling2D")
KILN_REGISTER_LAYER(AdaptiveAveragePooling3DImpl, "AdaptiveAveragePooling3D")
KILN_REGISTER_LAYER(AdaptiveMaxPooling1DImpl, "AdaptiveMaxPooling1D")
KILN_REGISTER_LAYER(AdaptiveMaxPooling2DImpl, "AdaptiveMaxPooling2D")
KILN_REGISTER_LAYER(AdaptiveMaxPooling3DImpl, "AdaptiveMaxPooling3D")

}  // namespace kiln::layers

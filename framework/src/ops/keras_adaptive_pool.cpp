// keras.ops.adaptive_average_pool and adaptive_max_pool, one spatial axis at a time
// (both reductions are separable over box windows). Output bin i of an axis of
// length n covers [floor(i·n / out), ceil((i + 1)·n / out)): the mean as an
// (out, n) averaging matrix, the max bin by bin.
#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/keras_nn_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "ops/keras_conv_args.h"

namespace kiln {

using namespace ops::spatial;

namespace {

struct Bin {
  int64_t start, size;
};
Bin adaptive_bin(int64_t i, int64_t in, int64_t out) {
  const int64_t start = (i * in) / out;                 // floor
  const int64_t end = ((i + 1) * in + out - 1) / out;  // ceil
  return {start, end - start};
}

Tensor adaptive_axis(const Tensor& x, int axis, int64_t out, bool is_max) {
  const int64_t in = x.shape()[axis];
  if (is_max) {
    std::vector<Tensor> parts;
    std::vector<Index> idx(static_cast<std::size_t>(axis), Slice());
    idx.push_back(Slice());
    for (int64_t i = 0; i < out; ++i) {
      const Bin b = adaptive_bin(i, in, out);
      idx.back() = Slice(b.start, b.start + b.size);
      parts.push_back(max(slice(x, idx), {axis}, true));
    }
    return parts.size() == 1 ? parts[0] : concat(parts, axis);
  }
  std::vector<double> w(static_cast<std::size_t>(out * in), 0.0);
  for (int64_t i = 0; i < out; ++i) {
    const Bin b = adaptive_bin(i, in, out);
    for (int64_t j = b.start; j < b.start + b.size; ++j) w[static_cast<std::size_t>(i * in + j)] = 1.0 / static_cast<double>(b.size);
  }
  const Shape s = x.shape();
  int64_t pre = 1, post = 1;
  for (int i = 0; i < axis; ++i) pre *= s[i];
  for (int64_t i = axis + 1; i < s.rank(); ++i) post *= s[i];
  Tensor y = matmul(cast(Tensor(w, Shape{out, in}), x.dtype()).to(x.device()), reshape(x, {pre, in, post}));
  Shape out_shape = s;
  out_shape[axis] = out;
  return reshape(y, out_shape);
}

Tensor adaptive_pool(const char* op, bool is_max, const Tensor& inputs, const std::vector<int64_t>& output_size,
                     const std::string& data_format) {
  const int rank = spatial_rank(op, inputs);
  const bool cf = is_channels_first(op, data_format);
  if (!is_floating(inputs.dtype()))
    throw TypeError(std::string(op) + ": expected float32 or float64 inputs, but received " + dtype_name(inputs.dtype()) +
                    " with shape " + inputs.shape().to_string());
  const auto sizes = per_axis(op, "output_size", output_size, rank);
  Tensor x = inputs;
  for (int i = 0; i < rank; ++i) {
    const int axis = (cf ? 2 : 1) + i;
    if (x.shape()[axis] <= 0)
      throw ValueError(std::string(op) + ": spatial axis " + std::to_string(i) + " of inputs with shape " +
                       inputs.shape().to_string() + " is empty");
    x = adaptive_axis(x, axis, sizes[static_cast<std::size_t>(i)], is_max);
  }
  return x;
}

}  // namespace

Tensor adaptive_average_pool(const Tensor& inputs, const std::vector<int64_t>& output_size, const std::string& data_format) {
  return adaptive_pool("adaptive_average_pool", false, inputs, output_size, data_format);
}

Tensor adaptive_max_pool(const Tensor& inputs, const std::vector<int64_t>& output_size, const std::string& data_format) {
  return adaptive_pool("adaptive_max_pool", true, inputs, output_size, data_format);
}

}  // namespace kiln

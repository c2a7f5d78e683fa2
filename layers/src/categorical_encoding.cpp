// One-hot, multi-hot and count encodings, as jax.nn.one_hot and Keras's reductions give them.
#include "categorical_encoding.h"

#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"

namespace kiln::layers::detail {

namespace {
// (…) -> (…, depth): 1 where the entry equals the class index. Compared in float64,
// so a non-integral float index matches no class (as jax.nn.one_hot).
Tensor one_hot_of(const Tensor& x, int64_t depth, DType dtype) {
  const Tensor classes = range(0.0, static_cast<double>(depth), 1.0, DType::float64);
  return cast(equal(expand_dims(cast(x, DType::float64), static_cast<int>(x.rank())), classes), dtype);
}
}  // namespace

Tensor encode_categorical(const Tensor& indices, const std::string& mode, int64_t depth, DType dtype) {
  Tensor x = indices.rank() == 0 ? reshape(indices, {1}) : indices;
  if (mode == "int") return cast(x, dtype);
  const int reduction_axis = x.rank() > 1 ? 1 : 0;
  if (mode == "one_hot") {
    if (x.rank() > 1 && x.shape()[-1] == 1) x = squeeze(x, {static_cast<int>(x.rank()) - 1});
    return one_hot_of(x, depth, dtype);
  }
  if (mode == "multi_hot") return max(one_hot_of(cast(x, DType::int32), depth, dtype), reduction_axis);
  if (mode == "count") return sum(one_hot_of(x, depth, dtype), reduction_axis);
  throw ValueError("Unknown arg for output_mode: " + mode);
}

Shape encoded_shape(const Shape& input, const std::string& mode, int64_t depth) {
  Shape s = input.rank() == 0 ? Shape{1} : input;
  if (mode == "int") return s;
  if (mode == "one_hot") {
    if (s.rank() > 1 && s[-1] == 1) s.dims().pop_back();
    s.push_back(depth);
    return s;
  }
  Shape out;
  for (int64_t i = 0; i < s.rank(); ++i)
    if (i != (s.rank() > 1 ? 1 : 0)) out.push_back(s[i]);
  out.push_back(depth);
  return out;
}

}  // namespace kiln::layers::detail

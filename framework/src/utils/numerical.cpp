// keras.utils.to_categorical and keras.utils.normalize.
#include "kiln/utils/numerical.h"

#include <algorithm>
#include <string>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/nn_ops.h"

namespace kiln::utils {

Tensor to_categorical(const Tensor& x, std::optional<int64_t> num_classes) {
  if (!is_integer(x.dtype()) && !is_floating(x.dtype()))
    throw TypeError("to_categorical: expected integer class labels, but received " + dtype_name(x.dtype()) +
                    " of shape " + x.shape().to_string());
  Tensor labels = x;
  if (x.rank() > 1 && x.shape().dims().back() == 1) labels = squeeze(x, {-1});
  auto v = cast(labels, DType::int64).to_vector<int64_t>();
  int64_t classes = num_classes.value_or(v.empty() ? 0 : *std::max_element(v.begin(), v.end()) + 1);
  for (auto c : v)
    if (c < 0 || c >= classes)
      throw ValueError("to_categorical: class " + std::to_string(c) + " is outside [0, " + std::to_string(classes) +
                       ") for num_classes=" + std::to_string(classes) + " (labels of shape " +
                       x.shape().to_string() + ")");
  return one_hot(cast(labels, DType::int64), classes, DType::float32);
}

Tensor normalize(const Tensor& x, int axis, int order) { return kiln::normalize(x, axis, order); }

}  // namespace kiln::utils

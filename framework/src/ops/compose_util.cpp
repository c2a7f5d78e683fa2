#include "ops/compose_util.h"

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"

namespace kiln::ops {

Tensor index_tensor(const std::vector<int64_t>& values, const Shape& shape, Device device) {
  return Tensor(values, shape).to(device);
}

Tensor index_tensor(const std::vector<int64_t>& values, Device device) {
  return index_tensor(values, Shape({static_cast<int64_t>(values.size())}), device);
}

Tensor gather_flat(const Tensor& x, const std::vector<int64_t>& flat, const Shape& shape, double fill_value) {
  const int64_t n = x.size();
  Tensor source = concat({reshape(x, Shape({n})), fill(Shape({1}), fill_value, x.dtype()).to(x.device())}, 0);
  std::vector<int64_t> at(flat);
  for (int64_t& i : at)
    if (i < 0) i = n;
  return reshape(gather(source, index_tensor(at, shape, x.device()), 0), shape);
}

std::vector<int> axis_to_end(int64_t rank, int from) {
  std::vector<int> perm;
  for (int i = 0; i < rank; ++i)
    if (i != from) perm.push_back(i);
  perm.push_back(from);
  return perm;
}

std::vector<int> inverse_perm(const std::vector<int>& perm) {
  std::vector<int> inv(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) inv[static_cast<std::size_t>(perm[i])] = static_cast<int>(i);
  return inv;
}

Tensor prepend_axes(const Tensor& x, int64_t rank) {
  if (x.rank() >= rank) return x;
  std::vector<int64_t> dims(static_cast<std::size_t>(rank - x.rank()), 1);
  for (int64_t d : x.shape().dims()) dims.push_back(d);
  return reshape(x, Shape(dims));
}

}  // namespace kiln::ops

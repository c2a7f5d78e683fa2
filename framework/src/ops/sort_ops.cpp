// sort, argsort and top_k: the order of each row is found on the host (values
// decide it, as for unique), and the values are gathered on their device, so
// the gradient flows back to each value's source position.
#include "kiln/ops/sort_ops.h"

#include <string>
#include <vector>

#include "kiln/ops/array_ops.h"
#include "ops/op_util.h"
#include "ops/sort_util.h"

namespace kiln {

using namespace ops;

namespace {

void check_sortable(const char* op, const Tensor& x) {
  check_concrete(op, x);
  if (x.rank() == 0) throw ValueError(std::string(op) + ": expected a tensor of rank >= 1, but received a scalar");
}

}  // namespace

Tensor sort(const Tensor& x, int axis) {
  check_sortable("sort", x);
  const int a = normalize_axis("sort", axis, x.rank());
  Tensor moved = axis_to_last(x, a);
  auto order = sorted_row_order(moved, false);
  return last_to_axis(take_rows(moved, order, moved.shape().dims().back()), a);
}

Tensor argsort(const Tensor& x, int axis) {
  check_concrete("argsort", x);
  if (x.rank() == 0) return Tensor(std::vector<int32_t>{0}, Shape{1});
  const int a = normalize_axis("argsort", axis, x.rank());
  Tensor moved = axis_to_last(x, a);
  return last_to_axis(int32_tensor_of(sorted_row_order(moved, false), moved.shape()).to(x.device()), a);
}

std::pair<Tensor, Tensor> top_k(const Tensor& x, int64_t k, bool /*sorted*/) {
  check_sortable("top_k", x);
  const int64_t n = x.shape().dims().back();
  if (k < 0 || k > n)
    throw ValueError("top_k: k must be in [0, " + std::to_string(n) + "] (the last axis of shape " +
                     x.shape().to_string() + "), but received k=" + std::to_string(k));
  auto order = sorted_row_order(x, true);
  std::vector<int64_t> kept;
  kept.reserve(static_cast<size_t>(row_count(x) * k));
  for (size_t r = 0; r * static_cast<size_t>(n) < order.size(); ++r)
    kept.insert(kept.end(), order.begin() + static_cast<std::ptrdiff_t>(r * n),
                order.begin() + static_cast<std::ptrdiff_t>(r * n + k));
  Shape out = x.shape();
  out.dims().back() = k;
  return {take_rows(x, kept, k), int32_tensor_of(kept, out).to(x.device())};
}

}  // namespace kiln

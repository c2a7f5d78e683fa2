// sort, argsort and top_k: the order of each row is found on the host (values
// decide it, as for unique), and the values are gathered on their device, so
// the gradient flows back to each value's source position.
#include "kiln/ops/sort_ops.h"

#include <algorithm>
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
  const int64_t rows = row_count(x);
  std::vector<int64_t> kept;
  kept.reserve(static_cast<size_t>(rows * k));
  for (int64_t r = 0; r < rows; ++r)
    kept.insert(kept.end(), order.begin() + r * n, order.begin() + r * n + k);
  Shape out = x.shape();
  out.dims().back() = k;
  return {take_rows(x, kept, k), int32_tensor_of(kept, out).to(x.device())};
}

Tensor argpartition(const Tensor& x, int64_t kth, std::optional<int> axis) {
  check_concrete("argpartition", x);
  Tensor src = axis ? x : reshape(x, Shape{x.size()});
  check_sortable("argpartition", src);
  const int a = normalize_axis("argpartition", axis.value_or(0), src.rank());
  Tensor moved = axis_to_last(src, a);
  const int64_t n = moved.shape().dims().back(), rows = row_count(moved);
  if (kth < -n || kth >= n)
    throw ValueError("argpartition: kth must be in [" + std::to_string(-n) + ", " + std::to_string(n) +
                     ") for an axis of length " + std::to_string(n) + ", but received kth=" + std::to_string(kth));
  const int64_t lead = (kth < 0 ? kth + n : kth) + 1;
  const auto order = sorted_row_order(moved, false);
  std::vector<int64_t> out;
  out.reserve(order.size());
  std::vector<char> taken(static_cast<size_t>(n));
  for (int64_t r = 0; r < rows; ++r) {
    std::fill(taken.begin(), taken.end(), 0);
    for (int64_t j = 0; j < lead; ++j) {
      out.push_back(order[static_cast<size_t>(r * n + j)]);
      taken[static_cast<size_t>(out.back())] = 1;
    }
    for (int64_t i = 0; i < n; ++i)
      if (!taken[static_cast<size_t>(i)]) out.push_back(i);
  }
  return last_to_axis(int32_tensor_of(out, moved.shape()).to(x.device()), a);
}

}  // namespace kiln

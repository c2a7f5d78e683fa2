// NumPy's joining and splitting helpers (kiln/ops/shape_ops.h): hstack, vstack,
// dstack and array_split with its axis-named kin, on concat and slice.
#include <algorithm>
#include <string>

#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/shape_ops.h"
#include "ops/compose_util.h"
#include "ops/op_util.h"

namespace kiln {

namespace {

/// NumPy's atleast_{1,2,3}d: (N,) -> (1, N) -> (1, N, 1); (M, N) -> (M, N, 1).
Tensor at_least(const Tensor& x, int64_t rank) {
  const auto& d = x.shape().dims();
  if (x.rank() >= rank) return x;
  if (x.rank() == 0) return reshape(x, Shape(std::vector<int64_t>(static_cast<std::size_t>(rank), 1)));
  if (rank == 2) return reshape(x, Shape({1, d[0]}));
  if (x.rank() == 1) return reshape(x, Shape({1, d[0], 1}));
  return reshape(x, Shape({d[0], d[1], 1}));
}

std::vector<Tensor> stack_inputs(const char* op, const std::vector<Tensor>& xs, int64_t rank) {
  if (xs.empty()) throw ValueError(std::string(op) + ": expected at least one tensor, but received none");
  DType d = xs[0].dtype();
  for (const Tensor& x : xs) d = ops::keras_result_type(d, x.dtype());
  std::vector<Tensor> out;
  for (const Tensor& x : xs) out.push_back(at_least(x.dtype() == d ? x : cast(x, d), rank));
  return out;
}

std::vector<Tensor> cut_at(const Tensor& x, const std::vector<int64_t>& bounds, int axis) {
  std::vector<Tensor> out;
  std::vector<Index> idx(static_cast<std::size_t>(x.rank()), Index(Slice()));
  for (std::size_t i = 0; i + 1 < bounds.size(); ++i) {
    idx[static_cast<std::size_t>(axis)] = Slice(bounds[i], std::max(bounds[i], bounds[i + 1]));
    out.push_back(slice(x, idx));
  }
  return out;
}

std::vector<Tensor> split_along(const char* op, const Tensor& x, const SplitSpec& spec, int axis, bool even) {
  const int a = ops::normalize_axis(op, axis, x.rank());
  const int64_t len = x.shape()[a];
  std::vector<int64_t> bounds{0};
  if (spec.sections) {
    const int64_t n = *spec.sections;
    if (n <= 0) throw ValueError(std::string(op) + ": number sections must be larger than 0, but received " + std::to_string(n));
    if (even && len % n != 0)
      throw ValueError(std::string(op) + ": array split does not result in an equal division: axis " +
                       std::to_string(axis) + " of " + ops::describe(x) + " into " + std::to_string(n) + " parts");
    for (int64_t i = 0; i < n; ++i) bounds.push_back(bounds.back() + len / n + (i < len % n ? 1 : 0));
  } else {
    for (int64_t i : spec.indices) bounds.push_back(std::clamp(i < 0 ? i + len : i, int64_t{0}, len));
    bounds.push_back(len);
  }
  return cut_at(x, bounds, a);
}

}  // namespace

Tensor hstack(const std::vector<Tensor>& xs) {
  auto ts = stack_inputs("hstack", xs, 1);
  return concat(ts, ts[0].rank() == 1 ? 0 : 1);
}

Tensor vstack(const std::vector<Tensor>& xs) { return concat(stack_inputs("vstack", xs, 2), 0); }

Tensor dstack(const std::vector<Tensor>& xs) { return concat(stack_inputs("dstack", xs, 3), 2); }

std::vector<Tensor> array_split(const Tensor& x, SplitSpec indices_or_sections, int axis) {
  return split_along("array_split", x, indices_or_sections, axis, false);
}

std::vector<Tensor> hsplit(const Tensor& x, SplitSpec indices_or_sections) {
  if (x.rank() == 0) throw ValueError("hsplit: expected a tensor with at least 1 axis, but received " + ops::describe(x));
  return split_along("hsplit", x, indices_or_sections, x.rank() == 1 ? 0 : 1, true);
}

std::vector<Tensor> vsplit(const Tensor& x, SplitSpec indices_or_sections) {
  if (x.rank() < 2) throw ValueError("vsplit: expected a tensor with at least 2 axes, but received " + ops::describe(x));
  return split_along("vsplit", x, indices_or_sections, 0, true);
}

std::vector<Tensor> dsplit(const Tensor& x, SplitSpec indices_or_sections) {
  if (x.rank() < 3) throw ValueError("dsplit: expected a tensor with at least 3 axes, but received " + ops::describe(x));
  return split_along("dsplit", x, indices_or_sections, 2, true);
}

}  // namespace kiln

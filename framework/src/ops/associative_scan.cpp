// keras.ops.associative_scan (kiln/ops/functional_ops.h): the prefix
// combination along an axis, one step per element. JAX combines in a balanced
// tree for parallelism; for an associative f both orders give the same
// result, and the sequential one calls f on slices that keep the axis.
#include <string>

#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/functional_ops.h"
#include "ops/functional_util.h"

namespace kiln {

std::vector<Tensor> associative_scan(const AssociativeFn& f, const std::vector<Tensor>& elems, bool reverse,
                                     int axis) {
  if (elems.empty()) throw ValueError("associative_scan: expected at least one tensor in `elems`, but received none");
  const int64_t n = functional::leading_length("associative_scan", elems, axis, std::nullopt);
  if (n == 0) return elems;
  // pieces[j][t]: element t of elems[j], the axis kept with length 1.
  std::vector<std::vector<Tensor>> pieces;
  for (const auto& e : elems) pieces.push_back(split(e, n, axis));
  auto element = [&](int64_t t) {
    std::vector<Tensor> v;
    for (const auto& p : pieces) v.push_back(p[static_cast<std::size_t>(t)]);
    return v;
  };
  std::vector<std::vector<Tensor>> out(static_cast<std::size_t>(n));
  const int64_t first = reverse ? n - 1 : 0, step = reverse ? -1 : 1;
  out[static_cast<std::size_t>(first)] = element(first);
  for (int64_t t = first + step; t >= 0 && t < n; t += step) {
    std::vector<Tensor> next = f(out[static_cast<std::size_t>(t - step)], element(t));
    functional::check_same_specs("associative_scan", "f's result", out[static_cast<std::size_t>(first)], next);
    out[static_cast<std::size_t>(t)] = std::move(next);
  }
  std::vector<Tensor> result;
  for (std::size_t j = 0; j < elems.size(); ++j) {
    std::vector<Tensor> column;
    for (const auto& o : out) column.push_back(o[j]);
    result.push_back(concat(column, axis));
  }
  return result;
}

}  // namespace kiln

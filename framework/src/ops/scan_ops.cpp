// keras.ops.scan, map, vectorized_map and associative_scan
// (kiln/ops/functional_ops.h): loops over an axis of static length, unrolled
// into recorded ops. associative_scan combines one element per step where JAX
// combines in a balanced tree for parallelism; for an associative f both orders
// give the same result, and the sequential one calls f on slices that keep the axis.
#include <string>

#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/functional_ops.h"
#include "ops/functional_util.h"

namespace kiln {

std::pair<std::vector<Tensor>, std::vector<Tensor>> scan(const ScanFn& f, std::vector<Tensor> init,
                                                         const std::vector<Tensor>& xs, ScanOptions options) {
  if (options.unroll < 1)
    throw ValueError("scan: `unroll` must be an positive integer or boolean. Received: unroll=" +
                     std::to_string(options.unroll));
  const int64_t n = functional::leading_length("scan", xs, 0, options.length);
  std::vector<std::vector<Tensor>> ys_at(static_cast<std::size_t>(n));
  const int64_t first = options.reverse ? n - 1 : 0;
  for (int64_t k = 0; k < n; ++k) {
    const int64_t t = options.reverse ? n - 1 - k : k;
    auto [carry, y] = f(init, functional::slices_at(xs, t));
    functional::check_same_specs("scan", "f's new carry", init, carry);
    if (k > 0) functional::check_same_specs("scan", "f's ys", ys_at[static_cast<std::size_t>(first)], y);
    init = std::move(carry);
    ys_at[static_cast<std::size_t>(t)] = std::move(y);
  }
  if (n == 0) {
    auto probe = functional::probe_outputs([&] { return f(init, functional::zero_slices(xs)).second; });
    return {init, functional::empty_stacks(probe)};
  }
  return {init, functional::stack_steps(ys_at)};
}

std::vector<Tensor> map(const MapFn& f, const std::vector<Tensor>& xs) {
  if (xs.empty()) throw ValueError("map: expected at least one tensor to map over, but received none");
  const int64_t n = functional::leading_length("map", xs, 0, std::nullopt);
  if (n == 0) return functional::empty_stacks(functional::probe_outputs([&] { return f(functional::zero_slices(xs)); }));
  std::vector<std::vector<Tensor>> outs(static_cast<std::size_t>(n));
  for (int64_t t = 0; t < n; ++t) {
    outs[static_cast<std::size_t>(t)] = f(functional::slices_at(xs, t));
    if (t > 0) functional::check_same_specs("map", "f's outputs", outs[0], outs[static_cast<std::size_t>(t)]);
  }
  return functional::stack_steps(outs);
}

std::vector<Tensor> vectorized_map(const MapFn& f, const std::vector<Tensor>& xs) { return map(f, xs); }

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

// Reordering and repeating ops (kiln/ops/shape_ops.h), composed of slice,
// gather, concat, transpose and reshape, which carry the gradients.
#include <algorithm>
#include <numeric>
#include <string>

#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/shape_ops.h"
#include "ops/compose_util.h"
#include "ops/op_util.h"

namespace kiln {

using ops::normalize_axis;

namespace {

std::vector<int> shape_op_axes(const char* op, const std::optional<std::vector<int>>& axis, int64_t rank) {
  std::vector<int> out;
  if (!axis) {
    for (int i = 0; i < rank; ++i) out.push_back(i);
    return out;
  }
  for (int a : *axis) {
    const int n = normalize_axis(op, a, rank);
    if (std::find(out.begin(), out.end(), n) != out.end())
      throw ValueError(std::string(op) + ": repeated axis " + std::to_string(a) + " for a tensor of rank " +
                       std::to_string(rank));
    out.push_back(n);
  }
  return out;
}

}  // namespace

Tensor flip(const Tensor& x, std::optional<std::vector<int>> axis) {
  std::vector<Index> idx(static_cast<std::size_t>(x.rank()), Index(Slice()));
  for (int a : shape_op_axes("flip", axis, x.rank())) idx[static_cast<std::size_t>(a)] = Slice(std::nullopt, std::nullopt, -1);
  return x.rank() == 0 ? identity(x) : slice(x, idx);
}

Tensor fliplr(const Tensor& x) {
  if (x.rank() < 2)
    throw ValueError("fliplr: expected a tensor with at least 2 axes, but received " + ops::describe(x));
  return flip(x, std::vector<int>{1});
}

Tensor flipud(const Tensor& x) {
  if (x.rank() < 1) throw ValueError("flipud: expected a tensor with at least 1 axis, but received " + ops::describe(x));
  return flip(x, std::vector<int>{0});
}

Tensor rot90(const Tensor& x, int k, std::pair<int, int> axes) {
  if (x.rank() < 2)
    throw ValueError("rot90: Input array must have at least 2 dimensions. Received: array.ndim=" +
                     std::to_string(x.rank()));
  const int a0 = normalize_axis("rot90", axes.first, x.rank()), a1 = normalize_axis("rot90", axes.second, x.rank());
  if (a0 == a1)
    throw ValueError("rot90: Invalid axes: (" + std::to_string(axes.first) + ", " + std::to_string(axes.second) +
                     "). Axes must be a tuple of two different dimensions.");
  k = ((k % 4) + 4) % 4;
  if (k == 0) return identity(x);
  if (k == 2) return flip(x, std::vector<int>{a0, a1});
  std::vector<int> perm(static_cast<std::size_t>(x.rank()));
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[static_cast<std::size_t>(a0)], perm[static_cast<std::size_t>(a1)]);
  if (k == 1) return transpose(flip(x, std::vector<int>{a1}), perm);
  return flip(transpose(x, perm), std::vector<int>{a1});
}

Tensor roll(const Tensor& x, std::vector<int64_t> shift, std::optional<std::vector<int>> axis) {
  if (!axis) {
    if (shift.size() != 1)
      throw ValueError("roll: with no axis, expected one shift, but received " + std::to_string(shift.size()));
    return reshape(roll(ravel(x), shift, std::vector<int>{0}), x.shape());
  }
  const std::vector<int>& axes = *axis;
  if (shift.size() != axes.size() && shift.size() != 1 && axes.size() != 1)
    throw ValueError("roll: shift and axis must have the same length, but received " + std::to_string(shift.size()) +
                     " shifts and " + std::to_string(axes.size()) + " axes");
  const std::size_t n = std::max(shift.size(), axes.size());
  Tensor y = x;
  for (std::size_t i = 0; i < n; ++i) {
    const int a = normalize_axis("roll", axes[axes.size() == 1 ? 0 : i], x.rank());
    const int64_t len = x.shape()[a];
    if (len == 0) continue;
    const int64_t s = ((shift[shift.size() == 1 ? 0 : i] % len) + len) % len;
    if (s == 0) continue;
    std::vector<Index> head(static_cast<std::size_t>(x.rank()), Index(Slice())), tail = head;
    head[static_cast<std::size_t>(a)] = Slice(len - s, std::nullopt);
    tail[static_cast<std::size_t>(a)] = Slice(std::nullopt, len - s);
    y = concat({slice(y, head), slice(y, tail)}, a);
  }
  return y;
}

Tensor moveaxis(const Tensor& x, std::vector<int> source, std::vector<int> destination) {
  if (source.size() != destination.size())
    throw ValueError("moveaxis: `source` and `destination` arguments must have the same number of elements, but "
                     "received " + std::to_string(source.size()) + " and " + std::to_string(destination.size()));
  const int64_t r = x.rank();
  for (int& a : source) a = normalize_axis("moveaxis", a, r);
  for (int& a : destination) a = normalize_axis("moveaxis", a, r);
  std::vector<int> perm(static_cast<std::size_t>(r), -1), rest;
  for (std::size_t i = 0; i < source.size(); ++i) {
    if (perm[static_cast<std::size_t>(destination[i])] != -1)
      throw ValueError("moveaxis: repeated axis in `destination` argument");
    perm[static_cast<std::size_t>(destination[i])] = source[i];
  }
  for (int a = 0; a < r; ++a)
    if (std::find(source.begin(), source.end(), a) == source.end()) rest.push_back(a);
  if (rest.size() + source.size() != static_cast<std::size_t>(r))
    throw ValueError("moveaxis: repeated axis in `source` argument");
  auto next = rest.begin();
  for (int& p : perm)
    if (p == -1) p = *next++;
  return transpose(x, perm);
}

Tensor swapaxes(const Tensor& x, int axis1, int axis2) {
  std::vector<int> perm(static_cast<std::size_t>(x.rank()));
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[static_cast<std::size_t>(normalize_axis("swapaxes", axis1, x.rank()))],
            perm[static_cast<std::size_t>(normalize_axis("swapaxes", axis2, x.rank()))]);
  return transpose(x, perm);
}

Tensor ravel(const Tensor& x) { return reshape(x, Shape({x.size()})); }

Tensor repeat(const Tensor& x, std::vector<int64_t> repeats, std::optional<int> axis) {
  if (!axis) return repeat(ravel(x), std::move(repeats), 0);
  const int a = normalize_axis("repeat", *axis, x.rank());
  const int64_t len = x.shape()[a];
  if (repeats.size() != 1 && static_cast<int64_t>(repeats.size()) != len)
    throw ValueError("repeat: expected one repeat count or " + std::to_string(len) + " (one per entry along axis " +
                     std::to_string(*axis) + " of " + ops::describe(x) + "), but received " +
                     std::to_string(repeats.size()));
  std::vector<int64_t> at;
  for (int64_t i = 0; i < len; ++i) {
    const int64_t r = repeats[repeats.size() == 1 ? 0 : static_cast<std::size_t>(i)];
    if (r < 0) throw ValueError("repeat: repeat counts must be non-negative, but received " + std::to_string(r));
    at.insert(at.end(), static_cast<std::size_t>(r), i);
  }
  return gather(x, ops::index_tensor(at, x.device()), a);
}

std::vector<Tensor> unstack(const Tensor& x, std::optional<int64_t> num, int axis) {
  const int a = normalize_axis("unstack", axis, x.rank());
  const int64_t len = x.shape()[a];
  if (num && *num != len)
    throw ValueError("unstack: num=" + std::to_string(*num) + " does not match the size " + std::to_string(len) +
                     " of axis " + std::to_string(axis) + " of " + ops::describe(x));
  std::vector<Tensor> out;
  std::vector<Index> idx(static_cast<std::size_t>(x.rank()), Index(Slice()));
  for (int64_t i = 0; i < len; ++i) {
    idx[static_cast<std::size_t>(a)] = Index(i);
    out.push_back(slice(x, idx));
  }
  return out;
}

Tensor append(const Tensor& x1, const Tensor& x2, std::optional<int> axis) {
  auto [a, b] = ops::keras_promote_pair(x1, x2);
  if (!axis) return concat({ravel(a), ravel(b)}, 0);
  return concat({a, b}, *axis);
}

}  // namespace kiln

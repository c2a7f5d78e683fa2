// Ops indexed by tensors of indices or masks: nonzero, boolean_mask, scatter,
// scatter_update, NumPy's t[mask] / t[indices] and JAX's t.at[...]. Indices
// are read on the host: they decide shapes (a mask's count) and must be
// checked, so a trace of these ops falls back to eager. Gradients come from
// the ops they are made of (reshape, gather, where) and from scatter's rule.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "core/op_log.h"
#include "kiln/autodiff/gradient_tape.h"
#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "ops/op_util.h"
#include "ops/half_compute.h"

namespace kiln {

using namespace ops;

namespace {

std::vector<int64_t> host_ints(const char* op, const Tensor& t) {
  check_concrete(op, t);
  if (!is_integer(t.dtype()))
    throw TypeError(std::string(op) + ": indices must be an integer tensor, but received " + dtype_name(t.dtype()) +
                    " of shape " + t.shape().to_string());
  return cast(t, DType::int64).to_vector<int64_t>();
}

Shape with_rows(int64_t rows, const Shape& rest) {
  Shape s{rows};
  for (auto d : rest) s.push_back(d);
  return s;
}

Tensor positions_tensor(const std::vector<int64_t>& v, const Tensor& like) {
  return Tensor(v, Shape{static_cast<int64_t>(v.size())}).to(like.device());
}

/// Row-major positions into shape[:k] of indices (..., k); negative entries count from the end.
std::vector<int64_t> linear_rows(const char* op, const Tensor& indices, const Shape& shape) {
  auto idx = host_ints(op, indices);
  if (indices.rank() < 1 || indices.shape().dims().back() > shape.rank() || indices.shape().dims().back() < 1)
    throw ValueError(std::string(op) + ": indices must have shape (..., k) with 1 <= k <= " +
                     std::to_string(shape.rank()) + " for a target of shape " + shape.to_string() +
                     ", but received indices of shape " + indices.shape().to_string());
  const int64_t k = indices.shape().dims().back();
  std::vector<int64_t> rows(idx.size() / static_cast<size_t>(k));
  for (size_t r = 0; r < rows.size(); ++r) {
    int64_t lin = 0;
    for (int64_t j = 0; j < k; ++j) {
      int64_t n = shape.dims()[j], i = idx[r * k + j];
      int64_t w = i < 0 ? i + n : i;
      if (w < 0 || w >= n)
        throw IndexError(std::string(op) + ": index " + std::to_string(i) + " (row " + std::to_string(r) +
                         " of indices) is out of bounds for axis " + std::to_string(j) + " with size " +
                         std::to_string(n) + " (shape " + shape.to_string() + ")");
      lin = lin * n + w;
    }
    rows[r] = lin;
  }
  return rows;
}

/// zeros((P,) + values.shape[1:]) with values[i] added at row rows[i].
Tensor scatter_rows(const std::vector<int64_t>& rows, const Tensor& values, int64_t P) {
  Tensor out = zeros(with_rows(P, values.shape().slice(1)), values.dtype()).to(values.device());
  Tensor where_to = positions_tensor(rows, values);
  be(values).scatter_add(out, where_to, values, 0);
  if (autodiff::active())
    autodiff::record("ScatterNd", {values}, {out},
                     [where_to](const Grads& g, const Needs&) { return Grads{gather(g[0], where_to, 0)}; });
  return out;
}

/// The values' expected shape: indices.shape[:-1] + shape[k:].
void check_values_shape(const char* op, const Tensor& indices, const Tensor& values, const Shape& target) {
  const int64_t k = indices.shape().dims().back();
  Shape want = indices.shape().slice(0, indices.rank() - 1);
  for (auto d : target.slice(k)) want.push_back(d);
  if (values.shape() != want)
    throw ValueError(std::string(op) + ": expected values of shape " + want.to_string() + " for indices of shape " +
                     indices.shape().to_string() + " into shape " + target.to_string() + ", but received " +
                     values.shape().to_string());
}

}  // namespace

std::vector<Tensor> nonzero(const Tensor& x) {
  KILN_LOG_OP(nonzero, x);
  KILN_HALF_IN_FLOAT32(nonzero, x);
  check_concrete("nonzero", x);
  auto flags = cast(x != 0.0, DType::int32).to_vector<int32_t>();
  std::vector<std::vector<int32_t>> axes(static_cast<size_t>(x.rank()));
  const auto& dims = x.shape().dims();
  for (size_t flat = 0; flat < flags.size(); ++flat) {
    if (!flags[flat]) continue;
    size_t rem = flat;
    for (int64_t a = x.rank() - 1; a >= 0; --a) {
      axes[a].push_back(static_cast<int32_t>(rem % static_cast<size_t>(dims[a])));
      rem /= static_cast<size_t>(dims[a]);
    }
  }
  std::vector<Tensor> out;
  for (auto& a : axes) out.push_back(Tensor(a, Shape{static_cast<int64_t>(a.size())}).to(x.device()));
  return out;
}

Tensor boolean_mask(const Tensor& x, const Tensor& mask) {
  KILN_LOG_OP(boolean_mask, x, mask);
  KILN_HALF_IN_FLOAT32(boolean_mask, x, mask);
  check_concrete("boolean_mask", x);
  check_concrete("boolean_mask", mask);
  if (mask.dtype() != DType::bool_)
    throw TypeError("boolean_mask: the mask must be a bool tensor, but received " + dtype_name(mask.dtype()) +
                    " of shape " + mask.shape().to_string());
  if (mask.rank() > x.rank() || x.shape().slice(0, mask.rank()) != mask.shape())
    throw IndexError("boolean_mask: a mask of shape " + mask.shape().to_string() +
                     " does not match the leading axes of a tensor of shape " + x.shape().to_string());
  auto flags = cast(mask, DType::int32).to_vector<int32_t>();
  std::vector<int64_t> rows;
  for (size_t i = 0; i < flags.size(); ++i)
    if (flags[i]) rows.push_back(static_cast<int64_t>(i));
  Tensor flat = reshape(x, with_rows(mask.shape().num_elements(), x.shape().slice(mask.rank())));
  return gather(flat, positions_tensor(rows, x), 0);
}

Tensor scatter(const Tensor& indices, const Tensor& values, const Shape& shape) {
  KILN_LOG_OP(scatter, indices, values, shape);
  KILN_HALF_IN_FLOAT32(scatter, indices, values, shape);
  check_concrete("scatter", values);
  auto rows = linear_rows("scatter", indices, shape);
  check_values_shape("scatter", indices, values, shape);
  const int64_t k = indices.shape().dims().back();
  Shape rest = shape.slice(k);
  Tensor placed = scatter_rows(rows, reshape(values, with_rows(static_cast<int64_t>(rows.size()), rest)),
                               shape.slice(0, k).num_elements());
  return reshape(placed, shape);
}

Tensor scatter_update(const Tensor& inputs, const Tensor& indices, const Tensor& updates) {
  KILN_LOG_OP(scatter_update, inputs, indices, updates);
  KILN_HALF_IN_FLOAT32(scatter_update, inputs, indices, updates);
  check_concrete("scatter_update", inputs);
  check_concrete("scatter_update", updates);
  auto rows = linear_rows("scatter_update", indices, inputs.shape());
  check_values_shape("scatter_update", indices, updates, inputs.shape());
  const int64_t k = indices.shape().dims().back(), P = inputs.shape().slice(0, k).num_elements();
  Shape rest = inputs.shape().slice(k);
  std::map<int64_t, int64_t> last;  // row -> the update that lands there
  for (size_t i = 0; i < rows.size(); ++i) last[rows[i]] = static_cast<int64_t>(i);
  std::vector<int64_t> kept_rows, kept_updates;
  std::vector<int32_t> hit(static_cast<size_t>(P), 0);
  for (auto [row, i] : last) {
    kept_rows.push_back(row);
    kept_updates.push_back(i);
    hit[static_cast<size_t>(row)] = 1;
  }
  Tensor u = updates.dtype() == inputs.dtype() ? updates : cast(updates, inputs.dtype());
  u = gather(reshape(u, with_rows(static_cast<int64_t>(rows.size()), rest)), positions_tensor(kept_updates, u), 0);
  Tensor placed = scatter_rows(kept_rows, u, P);
  Shape mask_shape{P};
  for (int64_t a = 0; a < rest.rank(); ++a) mask_shape.push_back(1);
  Tensor mask = cast(Tensor(hit, mask_shape), DType::bool_).to(inputs.device());
  return reshape(where(mask, placed, reshape(inputs, with_rows(P, rest))), inputs.shape());
}

// ---- NumPy's t[index] and JAX's t.at[index] ----

namespace {
Tensor take_rows(const Tensor& x, const Tensor& index) {
  if (index.dtype() == DType::bool_) return boolean_mask(x, index);
  if (!is_integer(index.dtype()))
    throw TypeError("tensor index: only integer and bool tensors can index a tensor, but received " +
                    dtype_name(index.dtype()) + " of shape " + index.shape().to_string());
  if (x.rank() == 0) throw IndexError("tensor index: a scalar (shape ()) has no axis to index");
  auto v = host_ints("tensor index", index);
  const int64_t n = x.shape().dims()[0];
  for (auto& i : v) {
    if (i < -n || i >= n)
      throw IndexError("tensor index: index " + std::to_string(i) + " is out of bounds for axis 0 with size " +
                       std::to_string(n) + " (shape " + x.shape().to_string() + ")");
    if (i < 0) i += n;
  }
  return gather(x, Tensor(v, index.shape()).to(x.device()), 0);
}
}  // namespace

template <std::same_as<Tensor> T>
Tensor Tensor::operator[](const T& index) const {
  return take_rows(*this, index);
}
template Tensor Tensor::operator[]<Tensor>(const Tensor&) const;

template <std::same_as<Tensor> T>
IndexUpdate Tensor::at(const T& index) const {
  return IndexUpdate(*this, index);
}
template IndexUpdate Tensor::at<Tensor>(const Tensor&) const;
IndexUpdate Tensor::at(const std::vector<Index>& index) const { return IndexUpdate(*this, index); }

IndexUpdate::IndexUpdate(Tensor x, Tensor index) : x_(std::move(x)), index_(std::move(index)) {}
IndexUpdate::IndexUpdate(Tensor x, std::vector<Index> index) : x_(std::move(x)), subscripts_(std::move(index)) {}

Tensor IndexUpdate::get() const { return index_.defined() ? take_rows(x_, index_) : slice(x_, subscripts_); }

Tensor IndexUpdate::positions() const {
  Tensor all = reshape(range(0.0, static_cast<double>(x_.size()), 1.0, DType::int64), x_.shape());
  return index_.defined() ? take_rows(all, index_) : slice(all, subscripts_);
}

Tensor IndexUpdate::set(const Tensor& value) const {
  Tensor pos = positions();
  Tensor v = broadcast_to(value.dtype() == x_.dtype() ? value : cast(value, x_.dtype()), pos.shape());
  Tensor flat = reshape(x_, Shape{x_.size()});
  Tensor out = scatter_update(flat, reshape(pos, Shape{pos.size(), 1}), reshape(v, Shape{pos.size()}));
  return reshape(out, x_.shape());
}
Tensor IndexUpdate::set(double value) const { return set(scalar_like(value, x_)); }

Tensor IndexUpdate::add(const Tensor& value) const {
  Tensor pos = positions();
  Tensor v = broadcast_to(value.dtype() == x_.dtype() ? value : cast(value, x_.dtype()), pos.shape());
  Tensor added = scatter(reshape(pos, Shape{pos.size(), 1}), reshape(v, Shape{pos.size()}), Shape{x_.size()});
  return x_ + reshape(added, x_.shape());
}
Tensor IndexUpdate::add(double value) const { return add(scalar_like(value, x_)); }

}  // namespace kiln

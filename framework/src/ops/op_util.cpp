#include "ops/op_util.h"

#include <algorithm>

#include "core/check.h"

namespace kiln::ops {

void check_concrete(const char* op, const Tensor& t) {
  if (!t.defined()) throw ValueError(std::string(op) + ": received an undefined tensor");
  if (t.is_symbolic())
    throw ValueError(std::string(op) + ": received a symbolic tensor with shape " + t.shape().to_string() +
                     "; symbolic tensors can only be passed to layers (use a Lambda layer for raw ops)");
}

Device common_device(const char* op, const std::vector<Tensor>& ts) {
  Device d = ts.at(0).device();
  for (const auto& t : ts)
    if (t.device() != d)
      throw ValueError(std::string(op) + ": expected all tensors on one device, but received tensors on " +
                       d.to_string() + " and " + t.device().to_string());
  return d;
}

void check_per_channel(const char* op, const char* what, const Tensor& p, const Tensor& x, const char* x_name) {
  check_concrete(op, p);
  common_device(op, {x, p});
  check_same_dtype(op, x, p);
  if (p.rank() != 1 || x.rank() < 1 || x.shape()[-1] != p.shape()[0])
    throw ShapeError(std::string(op) + ": " + what + " of shape " + p.shape().to_string() +
                     " must be 1-D and match the last axis of the " + x_name + " with shape " + x.shape().to_string());
}

std::vector<int> all_but_last_axis(int64_t rank) {
  std::vector<int> axes;
  for (int i = 0; i + 1 < rank; ++i) axes.push_back(i);
  return axes;
}

void check_same_dtype(const char* op, const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype())
    throw TypeError(std::string(op) + ": expected both inputs to have the same dtype, but received " +
                    dtype_name(a.dtype()) + " with shape " + a.shape().to_string() + " and " + dtype_name(b.dtype()) +
                    " with shape " + b.shape().to_string() + "; use cast()");
}

std::string describe(const Tensor& t) {
  return "a tensor of shape " + t.shape().to_string() + " and dtype " + dtype_name(t.dtype());
}

void check_unary_dtype(const char* op, backend::UnaryOp u, const Tensor& x) {
  using backend::UnaryOp;
  const DType d = x.dtype();
  KILN_CHECK(d != DType::string, TypeError, op << ": expected a numeric tensor, but received " << describe(x));
  switch (u) {
    case UnaryOp::isnan:
    case UnaryOp::isfinite: return;
    case UnaryOp::logical_not:
      KILN_CHECK(d == DType::bool_, TypeError, op << ": expected a bool tensor, but received " << describe(x));
      return;
    case UnaryOp::neg:
    case UnaryOp::abs:
    case UnaryOp::sign:
    case UnaryOp::square:
    case UnaryOp::relu:
    case UnaryOp::floor:
    case UnaryOp::round:
      KILN_CHECK(d != DType::bool_, TypeError,
                 op << ": expected a numeric tensor, but received " << describe(x) << "; cast it first");
      return;
    default:
      KILN_CHECK(is_floating(d), TypeError,
                 op << ": expected a float32 or float64 tensor, but received " << describe(x));
  }
}

void check_binary_dtype(const char* op, backend::BinaryOp b, const Tensor& x, const Tensor& y) {
  using backend::BinaryOp;
  check_same_dtype(op, x, y);
  KILN_CHECK(x.dtype() != DType::string, TypeError,
             op << ": arithmetic and ordering are not defined for string tensors, but received " << describe(x)
                << " and " << describe(y));
  const bool arithmetic = !(b == BinaryOp::eq || b == BinaryOp::ne || b == BinaryOp::lt || b == BinaryOp::le ||
                            b == BinaryOp::gt || b == BinaryOp::ge || b == BinaryOp::logical_and ||
                            b == BinaryOp::logical_or);
  KILN_CHECK(!arithmetic || x.dtype() != DType::bool_, TypeError,
             op << ": arithmetic is not defined for bool tensors, but received " << describe(x) << " and "
                << describe(y) << "; cast them to a numeric dtype first");
}

int normalize_axis(const char* op, int axis, int64_t rank) {
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank)
    throw IndexError(std::string(op) + ": axis " + std::to_string(axis) + " is out of bounds for a tensor of rank " +
                     std::to_string(rank));
  return static_cast<int>(a);
}

Shape keepdims_shape(const Shape& x, const std::vector<int>& axes) {
  Shape s = x;
  for (int a : axes) s.dims()[a] = 1;
  return s;
}

std::vector<int> resolve_axes(const char* op, const std::optional<std::vector<int>>& axes, int64_t rank) {
  std::vector<int> out;
  if (!axes) {
    for (int i = 0; i < rank; ++i) out.push_back(i);
    return out;
  }
  for (int a : *axes) out.push_back(normalize_axis(op, a, rank));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace kiln::ops

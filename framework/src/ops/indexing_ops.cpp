// Indexing ops: slicing, gather, where and one_hot, each with its checks and
// its gradient rule.
#include <string>
#include <vector>

#include "core/tensor_impl.h"
#include "core/op_log.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "ops/op_util.h"
#include "ops/half_compute.h"

namespace kiln {

using namespace ops;

namespace {
struct SlicePlan {
  Shape out_shape;
  int64_t offset = 0;
  std::vector<int64_t> strides;  // source strides per output axis (0 for new axes)
};

SlicePlan plan_slice(const Shape& xs, const std::vector<Index>& idx) {
  const auto xstr = contiguous_strides(xs);
  int64_t n_consuming = 0;
  bool has_ellipsis = false;
  for (const auto& i : idx) {
    if (std::holds_alternative<int64_t>(i.value()) || std::holds_alternative<Slice>(i.value())) ++n_consuming;
    if (std::holds_alternative<Ellipsis>(i.value())) {
      if (has_ellipsis) throw IndexError("slice: an index can only have a single ellipsis");
      has_ellipsis = true;
    }
  }
  if (n_consuming > xs.rank())
    throw IndexError("slice: too many indices (" + std::to_string(n_consuming) + ") for a tensor of shape " +
                     xs.to_string());
  SlicePlan p;
  int64_t axis = 0;
  auto full_axis = [&](int64_t a) {
    p.out_shape.push_back(xs.dims()[a]);
    p.strides.push_back(xstr[a]);
  };
  for (const auto& i : idx) {
    const auto& v = i.value();
    if (std::holds_alternative<Ellipsis>(v)) {
      int64_t fill = xs.rank() - n_consuming;
      for (int64_t k = 0; k < fill; ++k) full_axis(axis++);
    } else if (std::holds_alternative<NewAxis>(v)) {
      p.out_shape.push_back(1);
      p.strides.push_back(0);
    } else if (std::holds_alternative<int64_t>(v)) {
      int64_t k = std::get<int64_t>(v), n = xs.dims()[axis];
      int64_t kk = k < 0 ? k + n : k;
      if (kk < 0 || kk >= n)
        throw IndexError("slice: index " + std::to_string(k) + " is out of bounds for axis " + std::to_string(axis) +
                         " with size " + std::to_string(n) + " (shape " + xs.to_string() + ")");
      p.offset += kk * xstr[axis];
      ++axis;
    } else {
      const Slice& s = std::get<Slice>(v);
      const int64_t n = xs.dims()[axis];
      if (s.step == 0) throw ValueError("slice: step cannot be zero");
      int64_t start, stop;
      if (s.step > 0) {
        start = s.start ? (*s.start < 0 ? std::max<int64_t>(*s.start + n, 0) : std::min(*s.start, n)) : 0;
        stop = s.stop ? (*s.stop < 0 ? std::max<int64_t>(*s.stop + n, 0) : std::min(*s.stop, n)) : n;
      } else {
        start = s.start ? (*s.start < 0 ? std::max<int64_t>(*s.start + n, -1) : std::min(*s.start, n - 1)) : n - 1;
        stop = s.stop ? (*s.stop < 0 ? std::max<int64_t>(*s.stop + n, -1) : std::min(*s.stop, n - 1)) : -1;
      }
      int64_t len = s.step > 0 ? (stop > start ? (stop - start + s.step - 1) / s.step : 0)
                               : (start > stop ? (start - stop + (-s.step) - 1) / (-s.step) : 0);
      p.out_shape.push_back(len);
      p.strides.push_back(xstr[axis] * s.step);
      if (len > 0) p.offset += start * xstr[axis];
      ++axis;
    }
  }
  while (axis < xs.rank()) full_axis(axis++);
  return p;
}

Tensor slice_backward(const Tensor& dy, const Shape& xs, const SlicePlan& p, const std::vector<Index>& idx) {
  Tensor dx = zeros(xs, dy.dtype());
  dx = dx.to(dy.device());
  be(dy).strided_copy(dy, 0, contiguous_strides(dy.shape()), dx, p.offset, p.strides, p.out_shape, true);
  if (autodiff::active())
    autodiff::record("StridedSliceGrad", {dy}, {dx}, [idx](const Grads& g, const Needs&) { return Grads{slice(g[0], idx)}; });
  return dx;
}
}  // namespace

Tensor slice(const Tensor& x, const std::vector<Index>& idx) {
  KILN_LOG_OP(slice, x, idx);
  KILN_HALF_IN_FLOAT32(slice, x, idx);
  check_concrete("slice", x);
  SlicePlan p = plan_slice(x.shape(), idx);
  Tensor y = Tensor::empty(p.out_shape, x.dtype(), x.device());
  if (y.size() > 0) be(x).strided_copy(x, p.offset, p.strides, y, 0, contiguous_strides(p.out_shape), p.out_shape, false);
  if (autodiff::active()) {
    Shape xs = x.shape();
    autodiff::record("StridedSlice", {x}, {y},
                     [xs, p, idx](const Grads& dy, const Needs&) { return Grads{slice_backward(dy[0], xs, p, idx)}; });
  }
  return y;
}

namespace {
Tensor gather_backward(const Tensor& dy, const Tensor& indices, const Shape& params_shape, int axis) {
  Tensor dx = zeros(params_shape, dy.dtype()).to(dy.device());
  be(dy).scatter_add(dx, indices, dy, axis);
  if (autodiff::active())
    autodiff::record("GatherGrad", {dy}, {dx},
                     [indices, axis](const Grads& g, const Needs&) { return Grads{gather(g[0], indices, axis)}; });
  return dx;
}
}  // namespace

Tensor gather(const Tensor& params, const Tensor& indices, int axis) {
  KILN_LOG_OP(gather, params, indices, axis);
  KILN_HALF_IN_FLOAT32(gather, params, indices, axis);
  check_concrete("gather", params);
  check_concrete("gather", indices);
  if (!is_integer(indices.dtype()))
    throw TypeError("gather: indices must be int32 or int64, but received " + dtype_name(indices.dtype()));
  common_device("gather", {params, indices});
  int a = normalize_axis("gather", axis, params.rank());
  Shape os = params.shape().slice(0, a);
  for (auto d : indices.shape()) os.push_back(d);
  for (auto d : params.shape().slice(a + 1)) os.push_back(d);
  Tensor y = Tensor::empty(os, params.dtype(), params.device());
  be(params).gather(params, indices, a, y);
  if (autodiff::active()) {
    Shape ps = params.shape();
    autodiff::record("GatherV2", {params, indices}, {y}, [indices, ps, a](const Grads& dy, const Needs&) {
      Tensor flat_dy = dy[0];
      return Grads{gather_backward(flat_dy, indices, ps, a), Tensor()};
    });
  }
  return y;
}

Tensor where(const Tensor& cond, const Tensor& x, const Tensor& y) {
  KILN_LOG_OP(where, cond, x, y);
  KILN_HALF_IN_FLOAT32(where, cond, x, y);
  check_concrete("where", cond);
  check_concrete("where", x);
  check_concrete("where", y);
  common_device("where", {cond, x, y});
  check_same_dtype("where", x, y);
  Tensor c = cond.dtype() == DType::bool_ ? cond : cast(cond, DType::bool_);
  Shape s = broadcast_shapes(broadcast_shapes(c.shape(), x.shape(), "where"), y.shape(), "where");
  Tensor out = Tensor::empty(s, x.dtype(), x.device());
  be(x).where(c, x, y, out);
  if (autodiff::active())
    autodiff::record("Select", {c, x, y}, {out}, [c](const Grads& dy, const Needs& n) {
      Tensor z = zeros_like(dy[0]);
      return Grads{Tensor(), n[1] ? where(c, dy[0], z) : Tensor(), n[2] ? where(c, z, dy[0]) : Tensor()};
    });
  return out;
}

Tensor one_hot(const Tensor& indices, int64_t depth, DType dtype) {
  KILN_LOG_OP(one_hot, indices, depth, dtype);
  KILN_HALF_IN_FLOAT32(one_hot, indices, depth, dtype);
  check_concrete("one_hot", indices);
  if (!is_integer(indices.dtype()))
    throw TypeError("one_hot: indices must be an integer tensor, but received " + dtype_name(indices.dtype()));
  if (depth < 0) throw ValueError("one_hot: depth must be >= 0, got " + std::to_string(depth));
  Shape s = indices.shape();
  s.push_back(depth);
  Tensor y = Tensor::empty(s, dtype, indices.device());
  be(indices).one_hot(indices, depth, y);
  return y;
}

}  // namespace kiln

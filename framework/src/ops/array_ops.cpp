// Shape and indexing ops. All of them reduce to a strided copy in the backend.
#include "kiln/ops/array_ops.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "ops/op_util.h"
#include "core/tensor_impl.h"
#include "core/op_log.h"
#include "ops/half_compute.h"

namespace kiln {

using namespace ops;

Tensor reshape(const Tensor& x, const Shape& shape) {
  KILN_LOG_OP(reshape, x, shape);
  KILN_HALF_IN_FLOAT32(reshape, x, shape);
  if (!x.defined()) throw ValueError("reshape: received an undefined tensor");
  std::vector<int64_t> dims = shape.dims();
  int infer = -1;
  int64_t known = 1;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == -1) {
      if (infer >= 0) throw ValueError("reshape: only one dimension can be -1, but the requested shape is " + shape.to_string());
      infer = static_cast<int>(i);
    } else if (dims[i] < 0) {
      throw ValueError("reshape: invalid dimension " + std::to_string(dims[i]) + " in requested shape " + shape.to_string());
    } else if (__builtin_mul_overflow(known, dims[i], &known)) {
      throw ValueError("reshape: the requested shape " + shape.to_string() + " has more elements than fit in int64");
    }
  }
  if (x.is_symbolic()) throw ValueError("reshape: symbolic tensors must go through the Reshape layer");
  const int64_t n = x.size();
  if (infer >= 0) {
    if (known == 0 || n % known != 0)
      throw ShapeError("Input to reshape is a tensor with " + std::to_string(n) +
                       " values, but the requested shape requires a multiple of " + std::to_string(known));
    dims[infer] = n / known;
  } else if (known != n) {
    throw ShapeError("Input to reshape is a tensor with " + std::to_string(n) + " values, but the requested shape has " +
                     std::to_string(known));
  }
  Shape s(dims);
  Tensor y = alias_with_shape(x, s);
  if (autodiff::active()) {
    Shape xs = x.shape();
    autodiff::record("Reshape", {x}, {y}, [xs](const Grads& dy, const Needs&) { return Grads{reshape(dy[0], xs)}; });
  }
  return y;
}

Tensor transpose(const Tensor& x, std::vector<int> perm) {
  KILN_LOG_OP(transpose, x, perm);
  KILN_HALF_IN_FLOAT32(transpose, x, perm);
  check_concrete("transpose", x);
  const int64_t r = x.rank();
  if (perm.empty())
    for (int64_t i = r - 1; i >= 0; --i) perm.push_back(static_cast<int>(i));
  if (static_cast<int64_t>(perm.size()) != r)
    throw ValueError("transpose: perm has " + std::to_string(perm.size()) + " entries but the input " +
                     x.shape().to_string() + " has rank " + std::to_string(r));
  std::vector<bool> seen(r, false);
  for (auto& p : perm) {
    p = normalize_axis("transpose", p, r);
    if (seen[p]) throw ValueError("transpose: perm repeats axis " + std::to_string(p));
    seen[p] = true;
  }
  auto xs = contiguous_strides(x.shape());
  Shape os;
  std::vector<int64_t> src_strides;
  for (int p : perm) {
    os.push_back(x.shape()[p]);
    src_strides.push_back(xs[p]);
  }
  Tensor y = Tensor::empty(os, x.dtype(), x.device());
  be(x).strided_copy(x, 0, src_strides, y, 0, contiguous_strides(os), os, false);
  if (autodiff::active()) {
    std::vector<int> inv(r);
    for (int64_t i = 0; i < r; ++i) inv[perm[i]] = static_cast<int>(i);
    autodiff::record("Transpose", {x}, {y}, [inv](const Grads& dy, const Needs&) { return Grads{transpose(dy[0], inv)}; });
  }
  return y;
}

Tensor expand_dims(const Tensor& x, int axis) {
  KILN_LOG_OP(expand_dims, x, axis);
  KILN_HALF_IN_FLOAT32(expand_dims, x, axis);
  const int64_t r = x.rank() + 1;
  int a = normalize_axis("expand_dims", axis, r);
  std::vector<int64_t> d = x.shape().dims();
  d.insert(d.begin() + a, 1);
  return reshape(x, Shape(d));
}

Tensor squeeze(const Tensor& x, std::vector<int> axes) {
  KILN_LOG_OP(squeeze, x, axes);
  KILN_HALF_IN_FLOAT32(squeeze, x, axes);
  std::vector<int64_t> d;
  const auto& xd = x.shape().dims();
  std::vector<bool> drop(xd.size(), false);
  if (axes.empty()) {
    for (std::size_t i = 0; i < xd.size(); ++i) drop[i] = xd[i] == 1;
  } else {
    for (int a : axes) {
      int n = normalize_axis("squeeze", a, x.rank());
      if (xd[n] != 1)
        throw ValueError("squeeze: cannot squeeze axis " + std::to_string(a) + " of shape " + x.shape().to_string() +
                         " because its size is " + std::to_string(xd[n]) + ", not 1");
      drop[n] = true;
    }
  }
  for (std::size_t i = 0; i < xd.size(); ++i)
    if (!drop[i]) d.push_back(xd[i]);
  return reshape(x, Shape(d));
}

Tensor flatten(const Tensor& x) {
  KILN_LOG_OP(flatten, x);
  KILN_HALF_IN_FLOAT32(flatten, x);
  if (x.rank() < 1) throw ValueError("flatten: expected a tensor of rank >= 1, but received a scalar");
  return reshape(x, Shape{x.shape()[0], x.rank() == 1 ? 1 : x.size() / std::max<int64_t>(x.shape()[0], 1)});
}

Tensor concat(const std::vector<Tensor>& xs, int axis) {
  KILN_LOG_OP(concat, xs, axis);
  KILN_HALF_IN_FLOAT32(concat, xs, axis);
  if (xs.empty()) throw ValueError("concat: expected at least one tensor");
  for (const auto& x : xs) check_concrete("concat", x);
  common_device("concat", xs);
  const Tensor& first = xs[0];
  int a = normalize_axis("concat", axis, first.rank());
  Shape os = first.shape();
  int64_t total = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const auto& x = xs[i];
    check_same_dtype("concat", first, x);
    bool ok = x.rank() == first.rank();
    for (int64_t d = 0; ok && d < x.rank(); ++d)
      if (d != a && x.shape()[d] != first.shape()[d]) ok = false;
    if (!ok)
      throw ShapeError("concat: all inputs must have matching shapes except on axis " + std::to_string(axis) +
                       ", but input 0 has shape " + first.shape().to_string() + " and input " + std::to_string(i) +
                       " has shape " + x.shape().to_string());
    total += x.shape()[a];
  }
  os.dims()[a] = total;
  Tensor y = Tensor::empty(os, first.dtype(), first.device());
  auto ys = contiguous_strides(os);
  int64_t off = 0;
  for (const auto& x : xs) {
    if (x.size() > 0) be(x).strided_copy(x, 0, contiguous_strides(x.shape()), y, off * ys[a], ys, x.shape(), false);
    off += x.shape()[a];
  }
  if (autodiff::active()) {
    std::vector<int64_t> sizes;
    for (const auto& x : xs) sizes.push_back(x.shape()[a]);
    autodiff::record("ConcatV2", xs, {y}, [sizes, a](const Grads& dy, const Needs&) { return split(dy[0], sizes, a); });
  }
  return y;
}

Tensor stack(const std::vector<Tensor>& xs, int axis) {
  KILN_LOG_OP(stack, xs, axis);
  KILN_HALF_IN_FLOAT32(stack, xs, axis);
  if (xs.empty()) throw ValueError("stack: expected at least one tensor");
  int a = normalize_axis("stack", axis, xs[0].rank() + 1);
  std::vector<Tensor> e;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    if (!(xs[i].shape() == xs[0].shape()))
      throw ShapeError("stack: all inputs must have the same shape, but input 0 has shape " + xs[0].shape().to_string() +
                       " and input " + std::to_string(i) + " has shape " + xs[i].shape().to_string());
    e.push_back(expand_dims(xs[i], a));
  }
  return concat(e, a);
}

std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& sizes, int axis) {
  KILN_LOG_OP(split, x, sizes, axis);
  KILN_HALF_IN_FLOAT32(split, x, sizes, axis);
  check_concrete("split", x);
  int a = normalize_axis("split", axis, x.rank());
  int64_t total = std::accumulate(sizes.begin(), sizes.end(), int64_t{0});
  if (total != x.shape()[a])
    throw ShapeError("split: sizes add up to " + std::to_string(total) + " but axis " + std::to_string(axis) +
                     " of the input " + x.shape().to_string() + " has size " + std::to_string(x.shape()[a]));
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t s : sizes) {
    std::vector<Index> idx;
    for (int d = 0; d < a; ++d) idx.emplace_back(Slice());
    idx.emplace_back(Slice(start, start + s));
    out.push_back(slice(x, idx));
    start += s;
  }
  return out;
}

std::vector<Tensor> split(const Tensor& x, int64_t num, int axis) {
  KILN_LOG_OP(split, x, num, axis);
  KILN_HALF_IN_FLOAT32(split, x, num, axis);
  int a = normalize_axis("split", axis, x.rank());
  if (num <= 0 || x.shape()[a] % num != 0)
    throw ValueError("split: cannot split axis " + std::to_string(axis) + " of size " + std::to_string(x.shape()[a]) +
                     " (shape " + x.shape().to_string() + ") into " + std::to_string(num) + " equal parts");
  return split(x, std::vector<int64_t>(static_cast<std::size_t>(num), x.shape()[a] / num), a);
}

Tensor broadcast_to(const Tensor& x, const Shape& shape) {
  KILN_LOG_OP(broadcast_to, x, shape);
  KILN_HALF_IN_FLOAT32(broadcast_to, x, shape);
  check_concrete("broadcast_to", x);
  Shape b = broadcast_shapes(x.shape(), shape, "broadcast_to");
  if (!(b == shape))
    throw ShapeError("broadcast_to: cannot broadcast a tensor of shape " + x.shape().to_string() + " to shape " +
                     shape.to_string());
  if (x.shape() == shape) return identity(x);
  // Broadcast strides: 0 along expanded axes.
  std::vector<int64_t> src(shape.size(), 0);
  auto xs = contiguous_strides(x.shape());
  for (int64_t i = 0; i < x.rank(); ++i) {
    std::size_t o = shape.size() - x.shape().size() + static_cast<std::size_t>(i);
    src[o] = x.shape().dims()[i] == 1 ? 0 : xs[i];
  }
  Tensor y = Tensor::empty(shape, x.dtype(), x.device());
  if (y.size() > 0) be(x).strided_copy(x, 0, src, y, 0, contiguous_strides(shape), shape, false);
  if (autodiff::active())
    autodiff::record("BroadcastTo", {x}, {y}, [](const Grads& dy, const Needs&) { return Grads{dy[0]}; });
  return y;
}

Tensor tile(const Tensor& x, const std::vector<int64_t>& reps) {
  KILN_LOG_OP(tile, x, reps);
  KILN_HALF_IN_FLOAT32(tile, x, reps);
  for (int64_t r : reps)
    if (r < 0)
      throw ValueError("tile: repetitions must be 0 or more, but received " + Shape(reps).to_string() +
                       " for shape " + x.shape().to_string());
  // As NumPy: the shorter of the shape and the repetitions is padded with leading 1s.
  const std::size_t rank = std::max(reps.size(), static_cast<std::size_t>(x.rank()));
  std::vector<int64_t> dims(rank - static_cast<std::size_t>(x.rank()), 1), r(rank - reps.size(), 1);
  dims.insert(dims.end(), x.shape().dims().begin(), x.shape().dims().end());
  r.insert(r.end(), reps.begin(), reps.end());
  Shape inter, target, final_;
  for (std::size_t i = 0; i < rank; ++i) {
    inter.push_back(1);
    inter.push_back(dims[i]);
    target.push_back(r[i]);
    target.push_back(dims[i]);
    final_.push_back(r[i] * dims[i]);
  }
  return reshape(broadcast_to(reshape(x, inter), target), final_);
}

Tensor cast(const Tensor& x, DType dtype) {
  KILN_LOG_OP(cast, x, dtype);
  check_concrete("cast", x);
  if (x.dtype() == dtype) return x;
  if (is_string(x.dtype()) || is_string(dtype))
    throw TypeError("cast: Cast " + dtype_name(x.dtype()) + " to " + dtype_name(dtype) + " is not supported (" +
                    describe(x) + "); strings::to_number parses text and strings::as_string formats numbers");
  Tensor y = Tensor::empty(x.shape(), dtype, x.device());
  be(x).cast(x, y);
  if (autodiff::active() && is_floating(dtype)) {
    DType src = x.dtype();
    autodiff::record("Cast", {x}, {y}, [src](const Grads& dy, const Needs&) { return Grads{cast(dy[0], src)}; });
  }
  return y;
}

namespace {

std::pair<double, double> representable_range(DType d) {
  switch (d) {
    case DType::float32: return {-std::numeric_limits<float>::max(), std::numeric_limits<float>::max()};
    case DType::float64: return {-std::numeric_limits<double>::max(), std::numeric_limits<double>::max()};
    case DType::int32: return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    case DType::int64:
      return {static_cast<double>(std::numeric_limits<int64_t>::min()), static_cast<double>(std::numeric_limits<int64_t>::max())};
    case DType::uint8: return {0.0, 255.0};
    case DType::int8: return {-128.0, 127.0};
    case DType::bool_: return {0.0, 1.0};
    case DType::float16: return {-65504.0, 65504.0};
    case DType::bfloat16: return {-3.3895313892515355e38, 3.3895313892515355e38};
    case DType::string: break;  // no numbers: cast refuses strings before asking
  }
  return {0.0, 0.0};
}

// The largest or smallest value of an integer dtype, as a scalar of it.
Tensor integer_extreme(DType d, bool largest) {
  if (d == DType::int64) return Tensor(largest ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min());
  const auto [lo, hi] = representable_range(d);
  return cast(Tensor(static_cast<int64_t>(largest ? hi : lo)), d);
}

// A limit rounded to the input's precision (float32 inputs round; float64 holds
// every limit here but int64's extremes, which round to ±2^63).
double in_precision(double limit, DType in) { return in == DType::float32 ? static_cast<double>(static_cast<float>(limit)) : limit; }

// Whether v lies beyond `out`'s largest value (2^63 - 1 has no double, so test 2^63).
bool above_max(double v, DType out) { return out == DType::int64 ? v >= 9223372036854775808.0 : v > representable_range(out).second; }

// The same limit, stepped towards zero until `out` holds it, so that the cast is defined.
double castable(double limit, DType in, DType out) {
  if (is_floating(out)) return limit;
  double v = limit;
  while (above_max(v, out) || v < representable_range(out).first)
    v = in == DType::float32 ? static_cast<double>(std::nextafter(static_cast<float>(v), 0.0f)) : std::nextafter(v, 0.0);
  return v;
}

}  // namespace

Tensor saturate_cast(const Tensor& x, DType dtype) {
  if (x.dtype() == DType::bool_) return cast(x, dtype);
  const auto [in_min, in_max] = representable_range(x.dtype());
  const auto [out_min, out_max] = representable_range(dtype);
  // Keras clips to the tighter range as x's dtype holds it; a rounded limit can then
  // lie just past the output's range (float32 2^31 for int32), where XLA's conversion
  // saturates. Here the cast sees the nearest castable limit and the values at or
  // beyond the rounded one take the output's extreme.
  const double lo = in_precision(std::max(in_min, out_min), x.dtype()), hi = in_precision(std::min(in_max, out_max), x.dtype());
  const double lo_cast = castable(lo, x.dtype(), dtype), hi_cast = castable(hi, x.dtype(), dtype);
  // Floats are clipped even when the range fits, so that ±inf saturates as in Keras.
  const bool clip_needed = is_floating(x.dtype()) || lo > in_min || hi < in_max;
  Tensor y = cast(clip_needed ? clip(x, lo_cast, hi_cast) : x, dtype);
  if (hi_cast != hi) y = where(x >= hi, integer_extreme(dtype, true).to(x.device()), y);
  if (lo_cast != lo) y = where(x <= lo, integer_extreme(dtype, false).to(x.device()), y);
  return y;
}

Tensor stop_gradient(const Tensor& x) {
  KILN_LOG_OP(stop_gradient, x);
  KILN_HALF_IN_FLOAT32(stop_gradient, x);
  check_concrete("stop_gradient", x);
  return alias_with_shape(x, x.shape());
}

Tensor identity(const Tensor& x) {
  KILN_LOG_OP(identity, x);
  KILN_HALF_IN_FLOAT32(identity, x);
  check_concrete("identity", x);
  Tensor y = alias_with_shape(x, x.shape());
  if (autodiff::active()) autodiff::record("Identity", {x}, {y}, [](const Grads& dy, const Needs&) { return Grads{dy[0]}; });
  return y;
}

Tensor copy(const Tensor& x) {
  KILN_LOG_OP(copy, x);
  KILN_HALF_IN_FLOAT32(copy, x);
  check_concrete("copy", x);
  Tensor y = x.clone();
  if (autodiff::active()) autodiff::record("Identity", {x}, {y}, [](const Grads& dy, const Needs&) { return Grads{dy[0]}; });
  return y;
}

}  // namespace kiln

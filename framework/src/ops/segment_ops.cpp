// Segment reductions composed of a membership mask and ordinary reductions:
// member[s, i] says whether row i belongs to segment s, and each segment
// reduces where(member, data, identity) over the rows, so they run on every
// device and their gradients come from where and the reductions.
#include "kiln/ops/segment_ops.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "ops/op_util.h"

namespace kiln {

using namespace ops;

namespace {

enum class SegmentKind { sum, max, min, prod };

template <class T>
Tensor segment_limit(bool highest) {
  const T v = highest ? std::numeric_limits<T>::max() : std::numeric_limits<T>::lowest();
  return Tensor(std::vector<T>{v}, Shape{});
}

/// The identity of the reduction, a scalar in data's dtype (the extreme values for max and min).
Tensor segment_identity(SegmentKind k, const Tensor& data) {
  if (k == SegmentKind::sum) return scalar_like(0.0, data);
  if (k == SegmentKind::prod) return scalar_like(1.0, data);
  const bool highest = k == SegmentKind::min;
  const double inf = std::numeric_limits<double>::infinity();
  Tensor v;
  switch (data.dtype()) {
    case DType::int32: v = segment_limit<int32_t>(highest); break;
    case DType::int64: v = segment_limit<int64_t>(highest); break;
    case DType::uint8: return scalar_like(highest ? 255.0 : 0.0, data);
    case DType::int8: return scalar_like(highest ? 127.0 : -128.0, data);
    default: return scalar_like(highest ? inf : -inf, data);
  }
  return v.to(data.device());
}

Tensor segment_reduce(const char* op, SegmentKind kind, const Tensor& data, const Tensor& ids,
                      std::optional<int64_t> num_segments) {
  check_concrete(op, data);
  check_concrete(op, ids);
  if (ids.rank() != 1)
    throw ValueError(std::string(op) + ": Argument `segment_ids` should be an 1-D vector, got shape: " +
                     ids.shape().to_string());
  if (!is_integer(ids.dtype()))
    throw TypeError(std::string(op) + ": segment_ids must be an integer tensor, but received " + describe(ids));
  if (data.rank() < 1 || data.shape()[0] != ids.shape()[0])
    throw ValueError(std::string(op) + ": Argument `segment_ids` and `data` should have same leading dimension. Got " +
                     ids.shape().to_string() + " v.s. " + data.shape().to_string() + ".");
  if (data.dtype() == DType::bool_)
    throw TypeError(std::string(op) + ": expected numeric data, but received bool; cast it first");
  int64_t segments = 0;
  if (num_segments) {
    segments = *num_segments;
  } else {
    for (int64_t i : cast(ids, DType::int64).to_vector<int64_t>()) segments = std::max(segments, i + 1);
  }
  if (segments < 0) throw ValueError(std::string(op) + ": num_segments must be >= 0, but received " + std::to_string(segments));
  const int64_t rows = data.shape()[0];
  // member: (segments, rows, 1, ..., 1) so that it broadcasts over data's other axes.
  Shape mshape{segments, rows};
  for (int64_t a = 1; a < data.rank(); ++a) mshape.push_back(1);
  Tensor seg = reshape(range(0.0, static_cast<double>(segments), 1.0, DType::int64).to(data.device()), Shape{segments, 1});
  Tensor member = reshape(equal(seg, reshape(cast(ids, DType::int64), Shape{1, rows})), mshape);
  Tensor fill = segment_identity(kind, data);
  Shape out = data.shape();
  out.dims()[0] = segments;
  if (rows == 0 || segments == 0) return broadcast_to(fill, out);
  Tensor picked = where(member, expand_dims(data, 0), fill);
  switch (kind) {
    case SegmentKind::sum: return sum(picked, 1);
    case SegmentKind::prod: return prod(picked, 1);
    case SegmentKind::max: return max(picked, 1);
    case SegmentKind::min: return min(picked, 1);
  }
  return Tensor();
}

}  // namespace

Tensor segment_sum(const Tensor& data, const Tensor& ids, std::optional<int64_t> n, bool) {
  return segment_reduce("segment_sum", SegmentKind::sum, data, ids, n);
}
Tensor segment_max(const Tensor& data, const Tensor& ids, std::optional<int64_t> n, bool) {
  return segment_reduce("segment_max", SegmentKind::max, data, ids, n);
}
Tensor segment_min(const Tensor& data, const Tensor& ids, std::optional<int64_t> n, bool) {
  return segment_reduce("segment_min", SegmentKind::min, data, ids, n);
}
Tensor segment_prod(const Tensor& data, const Tensor& ids, std::optional<int64_t> n, bool) {
  return segment_reduce("segment_prod", SegmentKind::prod, data, ids, n);
}

}  // namespace kiln

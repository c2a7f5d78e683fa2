// Keras's dtype promotion for the element-wise ops of elementwise_math.h.
#include "ops/elementwise_promotion.h"

#include "kiln/ops/array_ops.h"

namespace kiln::ops {

namespace {

int keras_promotion_rank(DType d) {
  switch (d) {
    case DType::bool_: return 0;
    case DType::uint8:
    case DType::int8: return 1;
    case DType::int32: return 2;
    case DType::int64: return 3;
    case DType::float16:
    case DType::bfloat16: return 4;
    case DType::float32: return 5;
    case DType::float64: return 6;
    case DType::string: break;  // strings never promote: the ops refuse them first
  }
  return 5;
}

Tensor cast_if_needed(const Tensor& x, DType d) { return x.dtype() == d ? x : cast(x, d); }

}  // namespace

DType keras_result_type(DType a, DType b) {
  // float16 and bfloat16 are siblings in the lattice: their join is float32.
  if (is_half_float(a) && is_half_float(b) && a != b) return DType::float32;
  // So are uint8 and int8; JAX joins them in int16, which Kiln has not, so int32.
  if (a != b && (a == DType::uint8 || a == DType::int8) && (b == DType::uint8 || b == DType::int8)) return DType::int32;
  return keras_promotion_rank(a) >= keras_promotion_rank(b) ? a : b;
}

DType keras_float_result_type(DType a, DType b) {
  DType d = keras_result_type(a, b);
  return is_floating(d) ? d : DType::float32;
}

Tensor floating_or_float32(const Tensor& x) { return cast_if_needed(x, is_floating(x.dtype()) ? x.dtype() : DType::float32); }

std::pair<Tensor, Tensor> keras_promote_pair(const Tensor& a, const Tensor& b) {
  DType d = keras_result_type(a.dtype(), b.dtype());
  return {cast_if_needed(a, d), cast_if_needed(b, d)};
}

std::pair<Tensor, Tensor> keras_promote_pair_floating(const Tensor& a, const Tensor& b) {
  DType d = keras_float_result_type(a.dtype(), b.dtype());
  return {cast_if_needed(a, d), cast_if_needed(b, d)};
}

std::pair<Tensor, Tensor> keras_promote_pair_arithmetic(const Tensor& a, const Tensor& b) {
  if (a.dtype() == DType::bool_ && b.dtype() == DType::bool_) return {cast(a, DType::int32), cast(b, DType::int32)};
  return keras_promote_pair(a, b);
}

}  // namespace kiln::ops

// Keras's int4 helpers: nibble packing and grouped asymmetric quantization.
// They run as ordinary ops, so they work on every device and inside traces.
#include <cmath>

#include "ops/op_util.h"
#include "kiln/core/error.h"
#include "kiln/nn/quantizers.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/elementwise_math.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "kiln/ops/shape_ops.h"

namespace kiln::quantizers {

namespace {

/// The first `n` entries of x along `axis`.
Tensor prefix(const Tensor& x, int64_t n, int axis) {
  std::vector<Index> idx(static_cast<std::size_t>(axis), Slice());
  idx.push_back(Slice(0, n));
  return slice(x, idx);
}

}  // namespace

Tensor pack_int4(const Tensor& x, int axis) {
  if (x.dtype() != DType::int8)
    throw TypeError("pack_int4: Expected int8 tensor for packing, got " + dtype_name(x.dtype()) + " with shape " +
                    x.shape().to_string());
  const int a = ops::normalize_axis("pack_int4", axis, x.rank());
  Tensor v = cast(x, DType::int32);
  const int64_t n = x.shape()[a];
  if (n % 2 == 1) {
    PadWidth widths(static_cast<std::size_t>(x.rank()), {0, 0});
    widths[static_cast<std::size_t>(a)] = {0, 1};
    v = pad(v, widths);
  }
  const Tensor sixteen = Tensor(16, DType::int32);
  const Tensor low = mod(take(v, range(0, v.shape()[a], 2, DType::int32), a), sixteen);
  const Tensor high = mod(take(v, range(1, v.shape()[a], 2, DType::int32), a), sixteen);
  const Tensor byte = low + high * sixteen;  // 0 .. 255, read back as a signed byte
  return cast(where(byte >= 128, byte - 256, byte), DType::int8);
}

Tensor unpack_int4(const Tensor& packed, int64_t orig_len, int axis) {
  if (packed.dtype() != DType::int8)
    throw TypeError("unpack_int4: Expected int8 tensor for unpacking, got " + dtype_name(packed.dtype()) +
                    " with shape " + packed.shape().to_string());
  const int a = ops::normalize_axis("unpack_int4", axis, packed.rank());
  const int64_t m = packed.shape()[a];
  if (orig_len < 0 || (orig_len + 1) / 2 != m)
    throw ValueError("unpack_int4: " + std::to_string(m) + " packed bytes along axis " + std::to_string(axis) +
                     " hold " + std::to_string(2 * m - 1) + " or " + std::to_string(2 * m) +
                     " int4 values, but orig_len is " + std::to_string(orig_len));
  const Tensor v = cast(packed, DType::int32);
  const Tensor sixteen = Tensor(16, DType::int32), eight = Tensor(8, DType::int32);
  const Tensor high = floor_divide(v, sixteen);  // the signed high nibble
  const Tensor low = mod(v - high * sixteen + eight, sixteen) - eight;
  Shape merged = packed.shape();
  merged[a] = 2 * m;
  const Tensor both = reshape(stack({low, high}, a + 1), merged);
  return cast(orig_len == 2 * m ? both : prefix(both, orig_len, a), DType::int8);
}

GroupedQuantized abs_max_quantize_grouped_with_zero_point(const Tensor& x, int block_size, int value_min,
                                                          int value_max, double epsilon) {
  if (x.rank() != 2 || !is_floating(x.dtype()))
    throw ValueError("abs_max_quantize_grouped_with_zero_point: expected a 2-D float tensor (input_dim, output_dim), "
                     "but received " + dtype_name(x.dtype()) + " with shape " + x.shape().to_string());
  if (block_size <= 0)
    throw ValueError("abs_max_quantize_grouped_with_zero_point: block_size must be positive, but received " +
                     std::to_string(block_size));
  const int64_t rows = x.shape()[0], cols = x.shape()[1];
  const int64_t groups = (rows + block_size - 1) / block_size, padded = groups * block_size;
  const Tensor xp = padded > rows ? pad(x, {{0, padded - rows}, {0, 0}}) : x;
  const Tensor g = reshape(xp, {groups, block_size, cols});
  const Tensor lo = min(g, {1}, true), hi = max(g, {1}, true);
  const double qmin = value_min, qmax = value_max;
  const Tensor scale = (hi - lo + epsilon) / (qmax - qmin);
  const Tensor zero = clip(round(-lo / scale) + qmin, qmin, qmax);
  const Tensor q = clip(round(g / scale) + zero, qmin, qmax);
  return {cast(prefix(reshape(q, {padded, cols}), rows, 0), DType::int8), squeeze(scale, {1}),
          cast(squeeze(zero, {1}), DType::int8)};
}

Tensor dequantize_with_sz_map(const Tensor& weights, const Tensor& scale, const Tensor& zero, const Tensor& g_idx,
                              int group_axis) {
  const Tensor groups = cast(g_idx, DType::int32);
  const Tensor s = take(scale, groups, group_axis);
  const Tensor z = cast(take(zero, groups, group_axis), s.dtype());
  return (cast(weights, s.dtype()) - z) * s;
}

}  // namespace kiln::quantizers

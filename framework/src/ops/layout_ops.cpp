// keras.ops.unravel_index, empty, view, view_as_complex and view_as_real
// (kiln/ops/layout_ops.h).
#include "kiln/ops/layout_ops.h"

#include <cstring>
#include <string>

#include "backend/recording.h"
#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/creation_ops.h"
#include "kiln/ops/math_ops.h"
#include "ops/op_util.h"

namespace kiln {

using namespace ops;

std::vector<Tensor> unravel_index(const Tensor& indices, const Shape& shape) {
  check_concrete("unravel_index", indices);
  const DType d = indices.dtype();
  if (is_floating(d) || d == DType::bool_)
    throw TypeError("unravel_index: expected integer indices, but received " + describe(indices));
  for (auto s : shape.dims())
    if (s <= 0) throw ValueError("unravel_index: every dimension of shape must be positive, but received " +
                                 shape.to_string());
  // JAX's rule: peel the axes off from the last with floor division; what is
  // left says whether the index ran past either end, and such coordinates
  // clamp to the last (or first) position.
  std::vector<Tensor> coords(shape.size());
  Tensor rest = indices;
  for (int64_t i = shape.rank() - 1; i >= 0; --i) {
    Tensor s = full_like(rest, static_cast<double>(shape[i]));
    coords[static_cast<std::size_t>(i)] = floor_mod(rest, s);
    rest = floor_divide(rest, s);
  }
  Tensor past_end = greater(rest, zeros_like(rest));
  Tensor before_start = d == DType::uint8 ? zeros(rest.shape(), DType::bool_).to(rest.device())
                                          : less(rest, full_like(rest, -1.0));
  for (int64_t i = 0; i < shape.rank(); ++i) {
    Tensor& c = coords[static_cast<std::size_t>(i)];
    c = where(past_end, full_like(c, static_cast<double>(shape[i] - 1)), where(before_start, zeros_like(c), c));
  }
  return coords;
}

Tensor empty(const Shape& shape, DType dtype) {
  for (auto s : shape.dims())
    if (s < 0) throw ValueError("empty: dimensions must be non-negative, but received shape " + shape.to_string());
  return zeros(shape, dtype);
}

Tensor view(const Tensor& x, std::optional<DType> dtype) {
  check_concrete("view", x);
  if (!dtype || *dtype == x.dtype()) return x;
  const int64_t from = static_cast<int64_t>(dtype_size(x.dtype())), to = static_cast<int64_t>(dtype_size(*dtype));
  Shape out_shape = x.shape();
  if (from != to) {
    if (x.rank() == 0)
      throw ValueError("view: Changing the dtype of a 0d array is only supported if the itemsize is unchanged "
                       "(" + dtype_name(x.dtype()) + " to " + dtype_name(*dtype) + ")");
    const int64_t last_bytes = x.shape()[-1] * from;
    if (last_bytes % to != 0)
      throw ValueError("view: When changing to a larger dtype, its size must be a divisor of the total size in "
                       "bytes of the last axis of the array (" + x.shape().to_string() + " " + dtype_name(x.dtype()) +
                       " to " + dtype_name(*dtype) + ")");
    out_shape[-1] = last_bytes / to;
  }
  Tensor src = x.to(Device::cpu());
  Tensor out = Tensor::empty(out_shape, *dtype);
  const bool to_bool = *dtype == DType::bool_;
  // A host node inside a trace: the bytes are read again on every call.
  backend::run_as_host_node(
      [src, out, to_bool]() mutable {
        const auto nbytes = static_cast<std::size_t>(src.size()) * dtype_size(src.dtype());
        if (!to_bool) return static_cast<void>(std::memcpy(out.raw_data(), src.raw_data(), nbytes));
        const auto* in = static_cast<const unsigned char*>(src.raw_data());
        bool* o = out.data<bool>();
        for (std::size_t i = 0; i < nbytes; ++i) o[i] = in[i] != 0;
      },
      {.type = "View", .reads = {src}, .writes = {out}, .opaque = false});
  return out.to(x.device());
}

std::pair<Tensor, Tensor> view_as_complex(const Tensor& x) {
  check_concrete("view_as_complex", x);
  if (x.rank() < 1 || x.shape()[-1] != 2)
    throw ValueError("view_as_complex: Last dimension of input must be size 2 (real and imaginary). Received shape: " +
                     x.shape().to_string());
  auto parts = split(cast(x, DType::float32), int64_t{2}, -1);
  return {squeeze(parts[0], {-1}), squeeze(parts[1], {-1})};
}

Tensor view_as_real(const Tensor& real, const Tensor& imag) {
  check_concrete("view_as_real", real);
  check_concrete("view_as_real", imag);
  if (real.shape() != imag.shape())
    throw ValueError("view_as_real: the real and imaginary parts must have one shape, but received " +
                     real.shape().to_string() + " and " + imag.shape().to_string());
  DType d = is_floating(real.dtype()) || is_floating(imag.dtype())
                ? (real.dtype() == DType::float64 || imag.dtype() == DType::float64 ? DType::float64 : DType::float32)
                : DType::float32;
  return stack({cast(real, d), cast(imag, d)}, -1);
}

}  // namespace kiln

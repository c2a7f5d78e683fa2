// keras.ops' bitwise and integer maths (kiln/ops/bitwise_ops.h). The
// backends have no bit-level kernels, so the integer work runs on the host:
// operands are broadcast and promoted by recorded ops, and the element loop is
// a host node inside a kiln::function trace, so every replay recomputes it from
// that call's values. Bool operands of and/or/xor/invert use the logical ops.
#include "kiln/ops/bitwise_ops.h"

#include <cmath>
#include <numeric>
#include <string>
#include <type_traits>

#include "backend/recording.h"
#include "core/dispatch.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/creation_ops.h"
#include "kiln/ops/elementwise_math.h"
#include "kiln/ops/math_ops.h"
#include "ops/elementwise_promotion.h"
#include "ops/op_util.h"

namespace kiln {

using namespace ops;

namespace {

enum class BitwiseKind { bit_and, bit_or, bit_xor, shift_left, shift_right, gcd, lcm, next_after };

bool is_integer_dtype(DType d) { return d == DType::uint8 || d == DType::int32 || d == DType::int64; }

std::string bitwise_operands(const Tensor& x, const Tensor& y) {
  return std::string(dtype_name(x.dtype())) + " and " + dtype_name(y.dtype());
}

/// x << s as XLA's shift_left: 0 when s is negative or at least the width.
template <class T>
T shifted_left(T x, T s) {
  constexpr T bits = static_cast<T>(sizeof(T) * 8);
  if constexpr (std::is_signed_v<T>)
    if (s < 0) return 0;
  if (s >= bits) return 0;
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(x) << s));
}

/// x >> s as XLA's shift_right_arithmetic (signed) or _logical (unsigned): an
/// out-of-range amount fills with the sign bit.
template <class T>
T shifted_right(T x, T s) {
  constexpr T bits = static_cast<T>(sizeof(T) * 8);
  if constexpr (std::is_signed_v<T>) {
    if (s < 0 || s >= bits) return x < 0 ? T(-1) : T(0);
  } else {
    if (s >= bits) return 0;
  }
  return static_cast<T>(x >> s);
}

/// |x| with two's complement wrap-around (|INT_MIN| stays INT_MIN, as jnp.abs).
template <class T>
std::make_unsigned_t<T> magnitude(T x) {
  using U = std::make_unsigned_t<T>;
  if constexpr (std::is_signed_v<T>)
    if (x < 0) return static_cast<U>(U(0) - static_cast<U>(x));
  return static_cast<U>(x);
}

template <class T>
T integer_element(BitwiseKind kind, T a, T b) {
  using U = std::make_unsigned_t<T>;
  switch (kind) {
    case BitwiseKind::bit_and: return static_cast<T>(a & b);
    case BitwiseKind::bit_or: return static_cast<T>(a | b);
    case BitwiseKind::bit_xor: return static_cast<T>(a ^ b);
    case BitwiseKind::shift_left: return shifted_left(a, b);
    case BitwiseKind::shift_right: return shifted_right(a, b);
    case BitwiseKind::gcd: return static_cast<T>(std::gcd(magnitude(a), magnitude(b)));
    case BitwiseKind::lcm: {
      const U ma = magnitude(a), mb = magnitude(b), d = std::gcd(ma, mb);
      return d == 0 ? T(0) : static_cast<T>(static_cast<U>(ma * static_cast<U>(mb / d)));
    }
    case BitwiseKind::next_after: break;
  }
  throw ValueError("bitwise: unknown integer operation");
}

/// One element loop over two host tensors of the same shape and dtype.
void bitwise_loop(BitwiseKind kind, const Tensor& x, const Tensor& y, Tensor& out) {
  const int64_t n = out.size();
  if (kind == BitwiseKind::next_after) {
    dispatch_float(out.dtype(), "nextafter", [&](auto tag) {
      using T = decltype(tag);
      const T *a = x.data<T>(), *b = y.data<T>();
      T* o = out.data<T>();
      for (int64_t i = 0; i < n; ++i) o[i] = std::nextafter(a[i], b[i]);
    });
    return;
  }
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T *a = x.data<T>(), *b = y.data<T>();
    T* o = out.data<T>();
    for (int64_t i = 0; i < n; ++i) o[i] = integer_element<T>(kind, a[i], b[i]);
  };
  switch (out.dtype()) {
    case DType::uint8: return run(uint8_t{});
    case DType::int8: return run(int8_t{});
    case DType::int32: return run(int32_t{});
    case DType::int64: return run(int64_t{});
    default: throw TypeError(std::string("bitwise: no integer loop for ") + dtype_name(out.dtype()));
  }
}

/// Broadcasts x and y to one shape in `dtype`, runs the loop on the host (a
/// host node in a trace) and returns the result on the operands' device.
Tensor host_binary(const char* op, BitwiseKind kind, const Tensor& x, const Tensor& y, DType dtype) {
  check_concrete(op, x);
  check_concrete(op, y);
  const Device device = common_device(op, {x, y});
  const Shape shape = broadcast_shapes(x.shape(), y.shape(), op);
  Tensor a = broadcast_to(cast(x, dtype), shape).to(Device::cpu());
  Tensor b = broadcast_to(cast(y, dtype), shape).to(Device::cpu());
  Tensor out = Tensor::empty(shape, dtype);
  backend::run_as_host_node([kind, a, b, out]() mutable { bitwise_loop(kind, a, b, out); },
                            {.type = op, .reads = {a, b}, .writes = {out}, .opaque = false});
  return out.to(device);
}

void check_bitwise_dtypes(const char* op, const Tensor& x, const Tensor& y) {
  if (is_floating(x.dtype()) || is_floating(y.dtype()))
    throw TypeError(std::string(op) + ": expected integer or bool tensors, but received " + bitwise_operands(x, y));
}

Tensor bitwise_logic(const char* op, BitwiseKind kind, const Tensor& x, const Tensor& y) {
  check_concrete(op, x);
  check_concrete(op, y);
  check_bitwise_dtypes(op, x, y);
  const DType dtype = keras_result_type(x.dtype(), y.dtype());
  if (dtype == DType::bool_) {
    if (kind == BitwiseKind::bit_and) return logical_and(x, y);
    if (kind == BitwiseKind::bit_or) return logical_or(x, y);
    return logical_xor(x, y);
  }
  return host_binary(op, kind, x, y, dtype);
}

Tensor bitwise_shift(const char* op, BitwiseKind kind, const Tensor& x, const Tensor& y) {
  check_concrete(op, x);
  check_concrete(op, y);
  check_bitwise_dtypes(op, x, y);
  // jnp promotes the operands of a shift as numbers: two bools shift as int32.
  DType dtype = keras_result_type(x.dtype(), y.dtype());
  if (dtype == DType::bool_) dtype = DType::int32;
  return host_binary(op, kind, x, y, dtype);
}

/// A shift by a number: the amount is weakly typed, so it takes x's dtype.
Tensor shift_by_number(const char* op, BitwiseKind kind, const Tensor& x, int64_t amount) {
  check_concrete(op, x);
  check_bitwise_dtypes(op, x, x);
  const DType dtype = x.dtype() == DType::bool_ ? DType::int32 : x.dtype();
  return host_binary(op, kind, x, full_like(x, static_cast<double>(amount), dtype), dtype);
}

Tensor integer_pair(const char* op, BitwiseKind kind, const Tensor& x1, const Tensor& x2) {
  check_concrete(op, x1);
  check_concrete(op, x2);
  const DType dtype = keras_result_type(x1.dtype(), x2.dtype());
  if (!is_integer_dtype(dtype))
    throw ValueError(std::string(op) + ": expected integer tensors, but received " + bitwise_operands(x1, x2) +
                    " (promoted to " + dtype_name(dtype) + ")");
  return host_binary(op, kind, x1, x2, dtype);
}

}  // namespace

Tensor bitwise_and(const Tensor& x, const Tensor& y) {
  return bitwise_logic("bitwise_and", BitwiseKind::bit_and, x, y);
}
Tensor bitwise_or(const Tensor& x, const Tensor& y) { return bitwise_logic("bitwise_or", BitwiseKind::bit_or, x, y); }
Tensor bitwise_xor(const Tensor& x, const Tensor& y) {
  return bitwise_logic("bitwise_xor", BitwiseKind::bit_xor, x, y);
}

Tensor bitwise_invert(const Tensor& x) {
  check_concrete("bitwise_invert", x);
  if (is_floating(x.dtype()))
    throw TypeError(std::string("bitwise_invert: expected an integer or bool tensor, but received ") +
                    dtype_name(x.dtype()));
  if (x.dtype() == DType::bool_) return logical_not(x);
  // ~x == -1 - x in two's complement (255 - x for uint8), with no overflow.
  const double all_ones = x.dtype() == DType::uint8 ? 255.0 : -1.0;
  return subtract(full_like(x, all_ones), x);
}
Tensor bitwise_not(const Tensor& x) { return bitwise_invert(x); }

Tensor bitwise_left_shift(const Tensor& x, const Tensor& y) {
  return bitwise_shift("bitwise_left_shift", BitwiseKind::shift_left, x, y);
}
Tensor left_shift(const Tensor& x, const Tensor& y) {
  return bitwise_shift("left_shift", BitwiseKind::shift_left, x, y);
}
Tensor bitwise_right_shift(const Tensor& x, const Tensor& y) {
  return bitwise_shift("bitwise_right_shift", BitwiseKind::shift_right, x, y);
}
Tensor right_shift(const Tensor& x, const Tensor& y) {
  return bitwise_shift("right_shift", BitwiseKind::shift_right, x, y);
}

Tensor bitwise_left_shift(const Tensor& x, int64_t y) {
  return shift_by_number("bitwise_left_shift", BitwiseKind::shift_left, x, y);
}
Tensor left_shift(const Tensor& x, int64_t y) { return shift_by_number("left_shift", BitwiseKind::shift_left, x, y); }
Tensor bitwise_right_shift(const Tensor& x, int64_t y) {
  return shift_by_number("bitwise_right_shift", BitwiseKind::shift_right, x, y);
}
Tensor right_shift(const Tensor& x, int64_t y) {
  return shift_by_number("right_shift", BitwiseKind::shift_right, x, y);
}

Tensor gcd(const Tensor& x1, const Tensor& x2) { return integer_pair("gcd", BitwiseKind::gcd, x1, x2); }
Tensor lcm(const Tensor& x1, const Tensor& x2) { return integer_pair("lcm", BitwiseKind::lcm, x1, x2); }

Tensor nextafter(const Tensor& x1, const Tensor& x2) {
  check_concrete("nextafter", x1);
  check_concrete("nextafter", x2);
  return host_binary("nextafter", BitwiseKind::next_after, x1, x2, keras_float_result_type(x1.dtype(), x2.dtype()));
}

}  // namespace kiln

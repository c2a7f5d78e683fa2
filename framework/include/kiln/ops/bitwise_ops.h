#pragma once
// keras.ops' bitwise and integer maths under Keras's names (JAX semantics).
// Binary ops broadcast (NumPy rules) and promote their operands as
// keras.backend.result_type does (on Kiln's dtypes the larger of the two in
// bool < uint8 < int32 < int64 < float32 < float64). Bitwise ops take integer
// and bool tensors; a floating tensor throws TypeError, as JAX does. None of
// them is differentiable (their outputs are integers, or nextafter's steps).
//   Tensor a = kiln::Tensor(std::vector<int32_t>{12, 10}, {2});
//   kiln::bitwise_and(a, kiln::Tensor(6));   // [4 2]
//   kiln::left_shift(a, kiln::Tensor(2));    // [48 40]
//   kiln::gcd(a, kiln::Tensor(8));           // [4 2]
#include <cstdint>

#include "kiln/core/tensor.h"

namespace kiln {

/// keras.ops.bitwise_and: x & y (bool tensors: logical and).
Tensor bitwise_and(const Tensor& x, const Tensor& y);
/// keras.ops.bitwise_or: x | y (bool tensors: logical or).
Tensor bitwise_or(const Tensor& x, const Tensor& y);
/// keras.ops.bitwise_xor: x ^ y (bool tensors: logical xor).
Tensor bitwise_xor(const Tensor& x, const Tensor& y);
/// keras.ops.bitwise_invert: ~x, every bit flipped (bool tensors: logical not).
Tensor bitwise_invert(const Tensor& x);
/// keras.ops.bitwise_not: bitwise_invert(x).
Tensor bitwise_not(const Tensor& x);
/// keras.ops.bitwise_left_shift: x << y in the promoted dtype (two bool tensors
/// give int32). A shift by a negative amount or by the width of the dtype or
/// more gives 0, as XLA's shift_left does.
Tensor bitwise_left_shift(const Tensor& x, const Tensor& y);
/// keras.ops.left_shift: bitwise_left_shift(x, y).
Tensor left_shift(const Tensor& x, const Tensor& y);
/// keras.ops.bitwise_right_shift: x >> y, arithmetic for signed dtypes and
/// logical for uint8 (two bool tensors give int32). A shift by a negative
/// amount or by the width or more gives 0, or -1 for a negative signed x.
Tensor bitwise_right_shift(const Tensor& x, const Tensor& y);
/// keras.ops.right_shift: bitwise_right_shift(x, y).
Tensor right_shift(const Tensor& x, const Tensor& y);
/// The shifts by a number, as Keras takes a Python int: the amount takes x's
/// dtype (a bool x shifts as int32).
Tensor bitwise_left_shift(const Tensor& x, int64_t y);
Tensor left_shift(const Tensor& x, int64_t y);           ///< left_shift by a number.
Tensor bitwise_right_shift(const Tensor& x, int64_t y);  ///< bitwise_right_shift by a number.
Tensor right_shift(const Tensor& x, int64_t y);          ///< right_shift by a number.
/// keras.ops.gcd: the greatest common divisor of |x1| and |x2| (gcd(0, 0) = 0),
/// integer tensors only (bool and floating throw ValueError, as JAX does).
Tensor gcd(const Tensor& x1, const Tensor& x2);
/// keras.ops.lcm: |x1| * (|x2| / gcd(x1, x2)), 0 when either is 0; integer tensors only.
Tensor lcm(const Tensor& x1, const Tensor& x2);
/// keras.ops.nextafter: the next representable value after x1 towards x2, in
/// the floating result type (integer and bool give float32); x2 where they are
/// equal, NaN where either is NaN. Bit-exact in float32 and float64.
Tensor nextafter(const Tensor& x1, const Tensor& x2);

}  // namespace kiln

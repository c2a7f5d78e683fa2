#pragma once
// Private: Keras's dtype rules (keras.backend.result_type) for the ops of
// kiln/ops/elementwise_math.h. On Kiln's dtypes the promotion lattice is
// bool < uint8 < int32 < int64 < {float16, bfloat16} < float32 < float64, so
// the result of two dtypes is the larger one, and float32 for float16 with
// bfloat16. (Kiln keeps int64 and float64 where JAX without x64 drops to 32 bits.)
#include <utility>

#include "kiln/core/tensor.h"

namespace kiln::ops {

/// keras.backend.result_type(a, b) on Kiln's dtypes.
DType keras_result_type(DType a, DType b);
/// result_type(a, b, float): the promoted dtype, float32 when it is not floating.
DType keras_float_result_type(DType a, DType b);
/// x as it is when floating, else as float32 (Keras's JAX backend on int and bool inputs).
Tensor floating_or_float32(const Tensor& x);
/// a and b cast to keras_result_type.
std::pair<Tensor, Tensor> keras_promote_pair(const Tensor& a, const Tensor& b);
/// a and b cast to keras_float_result_type.
std::pair<Tensor, Tensor> keras_promote_pair_floating(const Tensor& a, const Tensor& b);
/// Both bool: cast to int32 (jnp's power, mod, fmod on two bool arrays); otherwise keras_promote_pair.
std::pair<Tensor, Tensor> keras_promote_pair_arithmetic(const Tensor& a, const Tensor& b);

}  // namespace kiln::ops

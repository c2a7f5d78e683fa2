#pragma once
// Private: resizing one axis of a tensor as jax.image.resize does (Keras 3's
// JAX backend, antialias off), from differentiable ops.
#include <cstdint>

#include "kiln/core/tensor.h"

namespace kiln::layers::detail {

/// Nearest: output i takes input floor((i + 0.5) · in / out), computed in float32 as JAX does.
Tensor resize_axis_nearest(const Tensor& x, int axis, int64_t out);
/// Linear (half-pixel centres): output i samples at s = (i + 0.5) · in / out - 0.5
/// with the triangle kernel max(0, 1 - |s - j|), weights normalised to sum 1,
/// so the edges repeat the border pixel. A weight matrix applied by matmul.
Tensor resize_axis_linear(const Tensor& x, int axis, int64_t out);
/// Each entry repeated `times` times in place along `axis` ([a, b] -> [a, a, b, b]).
Tensor repeat_axis(const Tensor& x, int axis, int64_t times);
/// Entries [start, start + size) of `axis`.
Tensor crop_axis(const Tensor& x, int axis, int64_t start, int64_t size);

}  // namespace kiln::layers::detail

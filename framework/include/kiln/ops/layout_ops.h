#pragma once
// keras.ops' small layout utilities: flat indices to coordinates, einops-style
// rearrangement, uninitialised creation and bit reinterpretation.
//   auto rc = kiln::unravel_index(kiln::Tensor(std::vector<int32_t>{5, 7}, {2}), {3, 4});  // {[1 1], [1 3]}
//   Tensor y = kiln::rearrange(x, "b (h w) c -> b h w c", {{"h", 4}});
//   Tensor bits = kiln::view(kiln::Tensor(1.0f), kiln::DType::int32);                   // 1065353216
//
// Complex tensors: Kiln has no complex dtype; a complex tensor is the pair of
// its real and imaginary parts (kiln::ComplexPair of kiln/ops/fft_ops.h, as
// the FFT ops take and give them), so view_as_complex returns that pair and
// view_as_real takes it.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kiln/core/tensor.h"

namespace kiln {

/// keras.ops.unravel_index: the coordinates of flat (row-major) `indices` in an
/// array of `shape`, one tensor per axis, in the indices' integer dtype.
/// Negative indices count from the end down to -size; past either end they
/// clamp (the last or the first coordinate), as JAX does.
std::vector<Tensor> unravel_index(const Tensor& indices, const Shape& shape);

/// keras.ops.rearrange (einops): reorders, splits and merges axes by a pattern
/// such as "b (h w) c -> b c h w" or "b h w c -> b (h w) c". A parenthesised
/// input group splits an axis; the lengths of all but one of its names come
/// from `axes_lengths`. The output's names must be the input's, each once.
Tensor rearrange(const Tensor& x, const std::string& pattern, const std::map<std::string, int64_t>& axes_lengths = {});

/// keras.ops.empty: a tensor of `shape` and `dtype` (float32 by default, Keras's
/// floatx). Its values are unspecified by Keras; Kiln's are zeros, as JAX's are.
Tensor empty(const Shape& shape, DType dtype = DType::float32);

/// keras.ops.view: x's bytes read as `dtype` (NumPy's ndarray.view): the same
/// shape when the element sizes match, else the last axis scaled by their
/// ratio (it must divide evenly). No dtype gives x itself. Bytes read as bool
/// are true where non-zero. Not differentiable.
Tensor view(const Tensor& x, std::optional<DType> dtype = std::nullopt);

/// keras.ops.view_as_complex: a real tensor of shape (..., 2) as the complex
/// tensor (real, imaginary) of shape (...), each part float32 (complex64's).
std::pair<Tensor, Tensor> view_as_complex(const Tensor& x);
/// keras.ops.view_as_real: the complex tensor (real, imaginary) as one real
/// tensor of shape (..., 2). Both parts must have one shape.
Tensor view_as_real(const Tensor& real, const Tensor& imag);

}  // namespace kiln

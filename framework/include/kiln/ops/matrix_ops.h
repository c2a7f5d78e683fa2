#pragma once
// keras.ops's matrix construction and products: triangles, diagonals, traces,
// identity matrices and the NumPy products (dot, tensordot, outer, kron, cross).
// Mixed dtypes promote as in JAX (bool < uint8 < int32 < int64 < float32 < float64).
#include <cstdint>
#include <optional>
#include <vector>

#include "kiln/core/tensor.h"

namespace kiln {

/// keras.ops.tril: x with the entries above the k-th diagonal of its last two axes zeroed.
Tensor tril(const Tensor& x, int64_t k = 0);
/// keras.ops.triu: x with the entries below the k-th diagonal of its last two axes zeroed.
Tensor triu(const Tensor& x, int64_t k = 0);
/// keras.ops.tri: an N x M matrix (M defaults to N) of ones at and below the k-th diagonal.
Tensor tri(int64_t N, std::optional<int64_t> M = std::nullopt, int64_t k = 0, DType dtype = DType::float32);
/// keras.ops.eye: an N x M matrix (M defaults to N) with ones on the k-th diagonal.
Tensor eye(int64_t N, std::optional<int64_t> M, int64_t k, DType dtype = DType::float32);
/// keras.ops.identity: the n x n identity matrix.
Tensor identity(int64_t n, DType dtype = DType::float32);
/// keras.ops.diag: of a 1-D x, the square matrix with x on its k-th diagonal; of a 2-D x, its k-th diagonal.
Tensor diag(const Tensor& x, int64_t k = 0);
/// keras.ops.diagflat: diag of the flattened x.
Tensor diagflat(const Tensor& x, int64_t k = 0);
/// keras.ops.diagonal: the diagonal at `offset` of the planes (axis1, axis2), as a new last axis.
Tensor diagonal(const Tensor& x, int64_t offset = 0, int axis1 = 0, int axis2 = 1);
/// keras.ops.trace: the sum of diagonal(x, offset, axis1, axis2); bool and uint8 sum in int32.
Tensor trace(const Tensor& x, int64_t offset = 0, int axis1 = 0, int axis2 = 1);
/// keras.ops.vander: the Vandermonde matrix of 1-D x: column j is x ** (N - 1 - j), or x ** j when increasing.
Tensor vander(const Tensor& x, std::optional<int64_t> N = std::nullopt, bool increasing = false);

/// keras.ops.outer: ravel(x1)[i] * ravel(x2)[j].
Tensor outer(const Tensor& x1, const Tensor& x2);
/// keras.ops.inner: the sum over the last axes of x1 and x2 (a product when one is a scalar).
Tensor inner(const Tensor& x1, const Tensor& x2);
/// keras.ops.vdot: the sum of ravel(x1) * ravel(x2).
Tensor vdot(const Tensor& x1, const Tensor& x2);
/// keras.ops.dot: NumPy's dot: scalars multiply, 1-D · 1-D is inner, N-D · 1-D sums over the last
/// axes, N-D · M-D sums x1's last axis with x2's second to last.
Tensor dot(const Tensor& x1, const Tensor& x2);
/// keras.ops.tensordot: the sum over the last `axes` axes of x1 and the first `axes` axes of x2.
Tensor tensordot(const Tensor& x1, const Tensor& x2, int axes = 2);
/// keras.ops.tensordot: the sum over the paired axes axes1[i] of x1 and axes2[i] of x2.
Tensor tensordot(const Tensor& x1, const Tensor& x2, const std::vector<int>& axes1, const std::vector<int>& axes2);
/// keras.ops.kron: the Kronecker product (the lower-rank operand gains leading size-1 axes).
Tensor kron(const Tensor& x1, const Tensor& x2);
/// keras.ops.cross: the cross product of the 2- or 3-vectors along axisa of x1 and axisb of x2
/// (other axes broadcast), placed along axisc; `axis`, when given, sets all three. Two
/// 2-vectors give the scalar z component.
Tensor cross(const Tensor& x1, const Tensor& x2, int axisa = -1, int axisb = -1, int axisc = -1,
             std::optional<int> axis = std::nullopt);

}  // namespace kiln

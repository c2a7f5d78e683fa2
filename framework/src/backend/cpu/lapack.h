#pragma once
// Private: dense linear algebra on host tensors through OpenBLAS's LAPACK (and its
// triangular solves). Every function takes contiguous float32 or float64 CPU tensors
// whose last two axes are row-major matrices and whose leading axes are a batch that
// all arguments share; the ops (framework/src/ops/linalg_*.cpp) check shapes and
// dtypes, broadcast batches, and bring tensors of other devices here and back.
#include "kiln/core/tensor.h"

namespace kiln::cpu::lapack {

/// Partial-pivoting LU of a (..., m, n): the packed factors (unit-lower L below the
/// diagonal, U on and above it) and the 0-based row swaps, int32 (..., min(m, n)):
/// row i was swapped with row pivots[i], in order. Singular matrices factor too.
void lu_factor(const Tensor& a, Tensor& lu, Tensor& pivots);

/// x with a x = b, a (..., n, n) and b (..., n, k), through the LU factors. A singular
/// a gives infinities or NaNs, as dividing by its zero pivot does.
Tensor solve(const Tensor& a, const Tensor& b);

/// x with a x = b for a triangular a (..., n, n), reading only its lower (or upper)
/// triangle, b (..., n, k).
Tensor triangular_solve(const Tensor& a, const Tensor& b, bool lower);

/// The lower Cholesky factor of each symmetric a (..., n, n), from its lower triangle;
/// the strict upper triangle is zero. False when some matrix is not positive definite
/// (its factor is then all NaN).
bool cholesky(const Tensor& a, Tensor& l);

/// Eigenvalues, ascending (..., n), and orthonormal eigenvectors as columns (..., n, n)
/// of each symmetric a (..., n, n), from its lower triangle.
void eigh(const Tensor& a, Tensor& w, Tensor& v);

/// Eigenvalues (..., n) and unit-norm right eigenvectors as columns (..., n, n) of a
/// general square a, as real and imaginary parts (LAPACK's order and normalisation:
/// each vector's largest component is real). False when the QR iteration did not
/// converge for some matrix (its results are NaN).
bool eig(const Tensor& a, Tensor& wr, Tensor& wi, Tensor& vr, Tensor& vi);

/// Singular values, descending (..., k) with k = min(m, n), of a (..., m, n), and, with
/// compute_uv, u (..., m, m or k) and vt (..., n or k, n) with a = u diag(s) vt.
/// False when the divide and conquer did not converge for some matrix.
bool svd(const Tensor& a, bool full_matrices, bool compute_uv, Tensor& u, Tensor& s, Tensor& vt);

/// Householder QR of a (..., m, n): q (..., m, k or m) with orthonormal columns and
/// upper-triangular r (..., k or m, n), k = min(m, n), the second sizes when complete.
void qr(const Tensor& a, bool complete, Tensor& q, Tensor& r);

}  // namespace kiln::cpu::lapack

#pragma once
// Linear algebra with keras.ops' names and semantics (keras.ops.linalg.*, and
// keras.ops.slogdet, logdet and cdist), as Keras's JAX backend computes them:
//
//   Tensor x = kiln::solve(a, b);                  // a (..., n, n), b (..., n, k) or (n,)
//   auto [q, r] = kiln::qr(a);                     // reduced: (..., m, k), (..., k, n)
//   auto [u, s, vh] = kiln::svd(a, false);         // a = u · diag(s) · vh
//   auto [w, v] = kiln::eigh(a);                   // ascending eigenvalues, columns of v
//   auto [sign, logabsdet] = kiln::slogdet(a);
//
// Matrices are the last two axes; leading axes are a batch (broadcast between two
// operands). Integer and bool inputs compute in float32, as JAX does; float32 and
// float64 keep their dtype. Shape errors are ValueErrors naming the op and the full
// shapes; a singular matrix is no error: solve and inv give infinities or NaNs, det
// gives 0, as JAX does. The ops are differentiable with JAX's rules (eigh and svd: for
// distinct eigen- or singular values), but for eig, lu_factor, matrix_rank and svd's full
// u and vh of a non-square matrix (which JAX cannot differentiate either): their
// gradients raise LookupError naming the op.
// The CPU backend computes them with OpenBLAS's LAPACK; tensors on other devices are
// copied to the CPU and back.
#include <optional>
#include <string>
#include <vector>

#include "kiln/core/tensor.h"
#include "kiln/ops/fft_ops.h"

namespace kiln {

/// keras.ops.cholesky: the lower (or, with upper, upper) triangular factor L of a
/// symmetric positive definite x (..., n, n), x = L·Lᵀ, read from the symmetrised
/// (x + xᵀ)/2. Throws ValueError when a matrix is not positive definite (as Keras does).
Tensor cholesky(const Tensor& x, bool upper = false);
/// keras.ops.cholesky_inverse: (L·Lᵀ)⁻¹ from the lower triangular factor L = x (or
/// (Uᵀ·U)⁻¹ from an upper factor with upper), by triangular solves. Batches transpose
/// their last two axes (Keras's JAX backend transposes every axis, so it takes only 2-D x).
Tensor cholesky_inverse(const Tensor& x, bool upper = false);
/// keras.ops.det: the determinant of each square matrix of x (..., n, n) -> (...).
Tensor det(const Tensor& x);
/// keras.ops.inv: the inverse of each square matrix of x (..., n, n).
Tensor inv(const Tensor& x);
/// keras.ops.solve: x with a·x = b; a (..., n, n), b (n,) or (..., n, k) (batches broadcast).
Tensor solve(const Tensor& a, const Tensor& b);
/// keras.ops.solve_triangular: x with a·x = b for triangular a (..., n, n), reading its
/// lower triangle when `lower`, else its upper one; b as for solve (JAX also takes
/// b (..., n) with a's batch as a batch of vectors).
Tensor solve_triangular(const Tensor& a, const Tensor& b, bool lower = false);

/// eigh's result: ascending eigenvalues (..., n) and orthonormal eigenvectors, as columns (..., n, n).
struct EighResult {
  Tensor eigenvalues;   ///< (..., n), ascending.
  Tensor eigenvectors;  ///< (..., n, n); column j belongs to eigenvalue j.
};
/// keras.ops.eigh: the eigen-decomposition of each symmetric matrix of x (..., n, n),
/// from its symmetrised (x + xᵀ)/2. Each eigenvector's sign is LAPACK's.
EighResult eigh(const Tensor& x);

/// eig's result. Kiln has no complex dtype, so complex values are (real, imag) pairs of
/// tensors, as for the Fourier transforms (kiln/ops/fft_ops.h).
struct EigResult {
  ComplexPair eigenvalues;   ///< (..., n) twice, in LAPACK's order.
  ComplexPair eigenvectors;  ///< (..., n, n) twice; column j belongs to eigenvalue j.
};
/// keras.ops.eig: eigenvalues and right eigenvectors of each general square matrix of x
/// (..., n, n). Each eigenvector has unit norm and its largest component real, as LAPACK
/// (and so JAX) normalises them; complex pairs come conjugate, the positive imaginary
/// part first. Not differentiable.
EigResult eig(const Tensor& x);

/// lu_factor's result.
struct LuFactorResult {
  Tensor lu;      ///< (..., m, n): unit-lower L below the diagonal, U on and above it.
  Tensor pivots;  ///< int32 (..., min(m, n)): row i was swapped with row pivots[i], in order.
};
/// keras.ops.lu_factor: the partially pivoted LU factorisation of x (..., m, n)
/// (jax.scipy.linalg.lu_factor). Not differentiable.
LuFactorResult lu_factor(const Tensor& x);

/// A norm order, as keras.ops.norm's `ord` takes one: none (the default), a number
/// (±inf included) or "fro" / "nuc".
struct NormOrd {
  NormOrd() = default;                                    ///< None: 2-norm, or Frobenius for matrices.
  NormOrd(double p) : value(p) {}                         ///< A number (inf, -inf, 0, 1, -1, 2, -2, any p).
  NormOrd(int p) : value(static_cast<double>(p)) {}       ///< A number.
  NormOrd(const char* n) : name(n) {}                     ///< "fro" or "nuc".
  NormOrd(std::string n) : name(std::move(n)) {}          ///< "fro" or "nuc".
  std::optional<double> value;  ///< The number, when one was given.
  std::string name;             ///< "fro" or "nuc", when a name was given.
};
/// keras.ops.norm: with one axis, the vector norm sum(|x|^p)^(1/p) (inf: max |x|,
/// -inf: min |x|, 0: the count of non-zeros); with two, the matrix norm (None and
/// "fro": Frobenius, "nuc": the sum of singular values, 1 / -1: the largest / smallest
/// column sum of |x|, inf / -inf: row sums, 2 / -2: the largest / smallest singular
/// value). No axis: all of x as one vector when ord is None, else x must be 1-D or 2-D.
/// It computes in float32 and returns float32 for every input dtype, float64 included, as
/// Keras's norm does (it casts to result_type(x.dtype, float)).
Tensor norm(const Tensor& x, const NormOrd& ord = {}, std::optional<std::vector<int>> axis = std::nullopt,
            bool keepdims = false);

/// qr's result.
struct QRResult {
  Tensor q;  ///< (..., m, k) reduced or (..., m, m) complete, orthonormal columns.
  Tensor r;  ///< (..., k, n) reduced or (..., m, n) complete, upper triangular.
};
/// keras.ops.qr: the Householder QR of x (..., m, n) with k = min(m, n); mode is
/// "reduced" or "complete". Differentiable with JAX's rules for every shape and mode.
QRResult qr(const Tensor& x, const std::string& mode = "reduced");

/// svd's result.
struct SVDResult {
  Tensor u;   ///< (..., m, m) full or (..., m, k); undefined without compute_uv.
  Tensor s;   ///< (..., k), descending, k = min(m, n).
  Tensor vh;  ///< (..., n, n) full or (..., k, n); undefined without compute_uv.
};
/// keras.ops.svd: x (..., m, n) = u · diag(s) · vh. Differentiable as JAX's: s always,
/// u and vh with full_matrices false (or square x); the signs of the singular vectors are LAPACK's.
SVDResult svd(const Tensor& x, bool full_matrices = true, bool compute_uv = true);

/// keras.ops.lstsq: the minimum-norm least-squares solution of a·x = b for a (m, n) and
/// b (m,) or (m, k), through the SVD: singular values below rcond · the largest count as
/// zero (default rcond: eps · max(m, n)).
Tensor lstsq(const Tensor& a, const Tensor& b, std::optional<double> rcond = std::nullopt);

/// slogdet's result.
struct SlogdetResult {
  Tensor sign;       ///< (...): 1, -1, or 0 for a singular matrix.
  Tensor logabsdet;  ///< (...): log |det|, -inf for a singular matrix.
};
/// keras.ops.slogdet: the sign and log absolute determinant of each square matrix of x.
SlogdetResult slogdet(const Tensor& x);
/// keras.ops.logdet: slogdet(x).logabsdet (Keras's JAX backend: log |det| for any sign).
Tensor logdet(const Tensor& x);
/// keras.ops.matrix_rank: int32 (...): the number of singular values of x (..., m, n)
/// above tol (default: the largest · max(m, n) · eps).
Tensor matrix_rank(const Tensor& x, std::optional<double> tol = std::nullopt);
/// keras.ops.pinv: the Moore–Penrose pseudo-inverse (..., n, m) of x (..., m, n), from the
/// SVD with singular values at or below rcond · the largest dropped (default rcond:
/// 10 · max(m, n) · eps).
Tensor pinv(const Tensor& x, std::optional<double> rcond = std::nullopt);
/// keras.ops.cdist: Euclidean distances (..., m, n) between the rows of x (..., m, d) and
/// of y (..., n, d); batch axes broadcast, integers compute in float32.
Tensor cdist(const Tensor& x, const Tensor& y);

}  // namespace kiln

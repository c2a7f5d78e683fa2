// keras.ops.det, slogdet and logdet from the LU factors, as JAX computes them:
// log |det| is the sum of log |U_ii|, and the sign is that of the U_ii times that of
// the row permutation; a zero pivot gives sign 0 and log |det| = −inf. det is
// sign · exp(log |det|), but 2 x 2 and 3 x 3 determinants are the closed forms
// (exact, and differentiable at singular matrices), as in jnp.linalg.det.
// Gradients (JAX's): d log |det a| = tr(a⁻¹·da), so ā = ḡ·a⁻ᵀ for log |det| and
// ā = ḡ·det·a⁻ᵀ for det; the sign's gradient is zero.
#include <limits>
#include <vector>

#include "backend/cpu/lapack.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/creation_ops.h"
#include "kiln/ops/linalg_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "ops/linalg_util.h"
#include "ops/op_util.h"

namespace kiln {

using namespace ops;

namespace {

/// (sign, log |det|) of a (..., n, n), untaped.
std::vector<Tensor> sign_and_logabs(const Tensor& a) {
  autodiff::Pause pause;
  const int64_t n = a.shape()[-1];
  auto f = on_host({a}, [](const std::vector<Tensor>& h) {
    Tensor lu, pivots;
    cpu::lapack::lu_factor(h[0], lu, pivots);
    return std::vector<Tensor>{lu, pivots};
  });
  Tensor diag = matrix_diagonal(f[0]);
  Tensor iota = cast(arange(n), DType::int32).to(a.device());
  Tensor swaps = sum(cast(f[1] != iota, DType::int32), -1);
  Tensor parity_sign = 1.0 - 2.0 * cast(swaps % 2, a.dtype());
  Tensor singular = any(diag == 0.0, -1);
  Tensor sign = where(singular, zeros_like(parity_sign), parity_sign * prod(kiln::sign(diag), -1));
  Tensor logabs = where(singular, full_like(parity_sign, -std::numeric_limits<double>::infinity()), sum(log(abs(diag)), -1));
  return {sign, logabs};
}

/// a⁻ᵀ, for the gradients.
Tensor inverse_transpose(const Tensor& a) { return inv(mT(a)); }

Tensor entry(const Tensor& a, int64_t i, int64_t j) { return slice(a, {ellipsis, Index(i), Index(j)}); }

/// The closed-form determinant of 2 x 2 and 3 x 3 matrices (differentiable as written).
Tensor small_det(const Tensor& a) {
  auto e = [&](int64_t i, int64_t j) { return entry(a, i, j); };
  if (a.shape()[-1] == 2) return e(0, 0) * e(1, 1) - e(0, 1) * e(1, 0);
  return e(0, 0) * e(1, 1) * e(2, 2) + e(0, 1) * e(1, 2) * e(2, 0) + e(0, 2) * e(1, 0) * e(2, 1) -
         e(0, 2) * e(1, 1) * e(2, 0) - e(0, 0) * e(1, 2) * e(2, 1) - e(0, 1) * e(1, 0) * e(2, 2);
}

}  // namespace

SlogdetResult slogdet(const Tensor& x) {
  Tensor a = linalg_input("slogdet", x, true);
  auto s = sign_and_logabs(a);
  if (autodiff::active())
    autodiff::record("Slogdet", {a}, {s[0], s[1]}, [a](const Grads& dy, const Needs&) {
      return Grads{expand_dims(expand_dims(dy[1], -1), -1) * inverse_transpose(a)};
    });
  return {s[0], s[1]};
}

Tensor logdet(const Tensor& x) { return slogdet(x).logabsdet; }

Tensor det(const Tensor& x) {
  Tensor a = linalg_input("det", x, true);
  const int64_t n = a.shape()[-1];
  if (n == 2 || n == 3) return small_det(a);
  Tensor d;
  {
    auto s = sign_and_logabs(a);
    autodiff::Pause pause;
    d = s[0] * exp(s[1]);
  }
  if (autodiff::active())
    autodiff::record("Det", {a}, {d}, [a, d](const Grads& dy, const Needs&) {
      return Grads{expand_dims(expand_dims(dy[0] * d, -1), -1) * inverse_transpose(a)};
    });
  return d;
}

}  // namespace kiln

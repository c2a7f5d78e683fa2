// keras.ops' linear solves and factorisations built on them: solve,
// solve_triangular, inv, cholesky, cholesky_inverse, lu_factor. Gradients are JAX's
// (jax/_src/lax/linalg.py), written with these differentiable ops:
//   x = a⁻¹·b:               b̄ = a⁻ᵀ·x̄, ā = −b̄·xᵀ (for a triangular a, masked to its triangle).
//   L = cholesky(a):          ā = L⁻ᵀ·Φ(Lᵀ·L̄)·L⁻¹, Φ = the lower triangle with the diagonal
//                             halved; a is symmetrised first, so the rule reaches x symmetrised.
#include <string>
#include <vector>

#include "backend/cpu/lapack.h"
#include "core/check.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/linalg_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/matrix_ops.h"
#include "ops/linalg_util.h"
#include "ops/op_util.h"

namespace kiln {

using namespace ops;

namespace {

/// a⁻¹·b for a (..., n, n) and b (..., n, k) of one batch shape.
Tensor solve_matrix(const Tensor& a, const Tensor& b) {
  Tensor x = on_host({a, b}, [](const std::vector<Tensor>& h) {
    return std::vector<Tensor>{cpu::lapack::solve(h[0], h[1])};
  })[0];
  if (autodiff::active())
    autodiff::record("Solve", {a, b}, {x}, [a, x](const Grads& dy, const Needs&) {
      Tensor gb = solve_matrix(mT(a), dy[0]);
      return Grads{neg(matmul(gb, x, false, true)), gb};
    });
  return x;
}

/// a⁻¹·b for a triangular a (..., n, n), read from one triangle, and b (..., n, k).
Tensor triangular_matrix(const Tensor& a, const Tensor& b, bool lower) {
  Tensor x = on_host({a, b}, [lower](const std::vector<Tensor>& h) {
    return std::vector<Tensor>{cpu::lapack::triangular_solve(h[0], h[1], lower)};
  })[0];
  if (autodiff::active())
    autodiff::record("SolveTriangular", {a, b}, {x}, [a, x, lower](const Grads& dy, const Needs&) {
      Tensor gb = triangular_matrix(mT(a), dy[0], !lower);
      Tensor ga = neg(matmul(gb, x, false, true));
      return Grads{lower ? tril(ga) : triu(ga), gb};
    });
  return x;
}

/// The lower Cholesky factor of a symmetric a (..., n, n).
Tensor cholesky_lower(const Tensor& a) {
  Tensor l = on_host({a}, [&](const std::vector<Tensor>& h) {
    Tensor out;
    KILN_CHECK(cpu::lapack::cholesky(h[0], out), ValueError,
               "cholesky: Cholesky decomposition failed: The input might not be a valid positive definite "
               "matrix. Received input with shape "
                   << a.shape().to_string());
    return std::vector<Tensor>{out};
  })[0];
  if (autodiff::active())
    autodiff::record("Cholesky", {a}, {l}, [l](const Grads& dy, const Needs&) {
      Tensor p = matmul(l, dy[0], true, false);
      Tensor phi = tril(p) - p * eye_as(p.shape()[-1], p) * 0.5;
      Tensor lt = mT(l);
      Tensor left = triangular_matrix(lt, phi, false);                // L⁻ᵀ·Φ
      return Grads{mT(triangular_matrix(lt, mT(left), false))};       // (L⁻ᵀ·(L⁻ᵀ·Φ)ᵀ)ᵀ = L⁻ᵀ·Φ·L⁻¹
    });
  return l;
}

void check_rhs(const char* op, const Tensor& b) {
  check_concrete(op, b);
  KILN_CHECK(b.rank() >= 1, ValueError, op << ": Expected input to have rank >= 1. Received scalar input b");
}

}  // namespace

Tensor solve(const Tensor& a, const Tensor& b) {
  Tensor fa = linalg_input("solve", a, true);
  check_rhs("solve", b);
  const bool vector = b.rank() == 1;
  auto [ba, bb] = linalg_operands("solve", fa, b, vector);
  Tensor x = solve_matrix(ba, bb);
  return vector ? squeeze(x, {-1}) : x;
}

Tensor solve_triangular(const Tensor& a, const Tensor& b, bool lower) {
  Tensor fa = linalg_input("solve_triangular", a, true);
  check_rhs("solve_triangular", b);
  // JAX still reads b (..., n) with a (..., n, n) as a batch of vectors.
  const bool vector = b.rank() == 1 || (a.rank() == b.rank() + 1 && a.shape()[-1] == b.shape()[-1]);
  auto [ba, bb] = linalg_operands("solve_triangular", fa, b, vector);
  Tensor x = triangular_matrix(ba, bb, lower);
  return vector ? squeeze(x, {-1}) : x;
}

Tensor inv(const Tensor& x) {
  Tensor a = linalg_input("inv", x, true);
  return solve_matrix(a, broadcast_to(eye_as(a.shape()[-1], a), a.shape()));
}

Tensor cholesky(const Tensor& x, bool upper) {
  Tensor a = linalg_input("cholesky", x, true);
  Tensor l = cholesky_lower((a + mT(a)) * 0.5);
  return upper ? mT(l) : l;
}

Tensor cholesky_inverse(const Tensor& x, bool upper) {
  Tensor a = linalg_input("cholesky_inverse", x, true);
  Tensor inv_chol = triangular_matrix(a, broadcast_to(eye_as(a.shape()[-1], a), a.shape()), !upper);
  return upper ? matmul(inv_chol, inv_chol, false, true) : matmul(inv_chol, inv_chol, true, false);
}

LuFactorResult lu_factor(const Tensor& x) {
  Tensor a = linalg_input("lu_factor", x, false);
  auto out = on_host({a}, [](const std::vector<Tensor>& h) {
    Tensor lu, pivots;
    cpu::lapack::lu_factor(h[0], lu, pivots);
    return std::vector<Tensor>{lu, pivots};
  });
  if (autodiff::active()) autodiff::record_no_gradient("LuFactor", {a}, {out[0]});
  return {out[0], out[1]};
}

}  // namespace kiln

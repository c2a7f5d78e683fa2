// keras.ops' eigen-, QR and singular value decompositions: eigh, eig, qr, svd.
// Gradients are JAX's (jax/_src/lax/linalg.py), transposed into reverse mode and
// written with differentiable ops:
//   eigh (a = V·diag(w)·Vᵀ):   ā = V·(diag(w̄) + F∘(Vᵀ·V̄))·Vᵀ, F_ij = 1/(w_j − w_i) off the diagonal.
//   qr, m >= n (a = Q·R):       M = R̄·Rᵀ − Qᵀ·Q̄, N = M − tril(M − Mᵀ, −1), ā = (Q̄ + Q·N)·R⁻ᵀ;
//                               m < n: the square block a₁ so, with Q̄ + a₂·R̄₂ᵀ, and ā₂ = Q·R̄₂;
//                               complete and m > n: see complete_tall_qr_grad.
//   svd (a = U·diag(s)·Vᵀ):     J_U = F∘(Uᵀ·Ū), J_V = F∘(Vᵀ·V̄), F_ij = 1/(s_j² − s_i²) off the diagonal;
//                               ā = U·(diag(s̄) + (J_U + J_Uᵀ)·S + S·(J_V + J_Vᵀ))·Vᵀ, plus
//                               (I − U·Uᵀ)·Ū·S⁻¹·Vᵀ when m > n, U·S⁻¹·V̄ᵀ·(I − V·Vᵀ) when n > m.
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

/// The eigen-decomposition of a symmetric a, with its gradient.
EighResult eigh_symmetric(const Tensor& a) {
  auto out = on_host({a}, [](const std::vector<Tensor>& h) {
    Tensor w, v;
    cpu::lapack::eigh(h[0], w, v);
    return std::vector<Tensor>{w, v};
  });
  Tensor w = out[0], v = out[1];
  if (autodiff::active())
    autodiff::record("Eigh", {a}, {w, v}, [w, v](const Grads& dy, const Needs&) {
      Tensor e = eye_as(w.shape()[-1], w);
      Tensor f = 1.0 / (e + expand_dims(w, -2) - expand_dims(w, -1)) - e;
      Tensor inner = diag_matrix(dy[0]) + f * matmul(v, dy[1], true, false);
      return Grads{matmul(matmul(v, inner), v, false, true)};
    });
  return {w, v};
}

/// x̄ of the thin QR (m >= n) x = q·r.
Tensor thin_qr_grad(const Tensor& q, const Tensor& r, const Tensor& gq, const Tensor& gr) {
  Tensor m = matmul(gr, r, false, true) - matmul(q, gq, true, false);
  Tensor n = m - tril(m - mT(m), -1);
  Tensor g = gq + matmul(q, n);
  return mT(solve_triangular(r, mT(g), false));
}

/// x̄ of the complete QR of a tall x (m > n): JAX completes Q's last m − n columns as
/// dQ₂ = dQ₁·Zᵀ − (Q₁ + Q₂·Z)·(dQ₁' − Z·dQ₁'')ᵀ, with Q₁ = Q[:, :n] (rows '' :n, ' n:) and
/// Zᵀ = (Q₁'' − I)⁻ᵀ·Q₁'ᵀ; its transpose folds Q̄₂ into Q̄₁ for the thin rule.
Tensor complete_tall_qr_grad(const Tensor& q, const Tensor& r, const Tensor& gq, const Tensor& gr, int64_t n) {
  const Index head = Slice(0, n), tail = Slice(n, std::nullopt), all = Slice();
  Tensor q1 = slice(q, {ellipsis, head}), q2 = slice(q, {ellipsis, tail});
  Tensor zt = solve(mT(slice(q1, {ellipsis, head, all}) - eye_as(n, q)), mT(slice(q1, {ellipsis, tail, all})));
  Tensor z = mT(zt);
  Tensor g2 = slice(gq, {ellipsis, tail});
  Tensor h = matmul(g2, q1 + matmul(q2, z), true, false);
  Tensor g1 = slice(gq, {ellipsis, head}) + matmul(g2, z) + concat({matmul(z, h, true, false), neg(h)}, -2);
  return thin_qr_grad(q1, slice(r, {ellipsis, head, all}), g1, slice(gr, {ellipsis, head, all}));
}

Tensor qr_grad(const Tensor& x, const Tensor& q, const Tensor& r, const Tensor& gq, const Tensor& gr) {
  const int64_t m = x.shape()[-2], n = x.shape()[-1];
  if (m > n && q.shape()[-1] == m) return complete_tall_qr_grad(q, r, gq, gr, n);
  if (m >= n) return thin_qr_grad(q, r, gq, gr);
  const Index first = Slice(0, m), rest = Slice(m, std::nullopt);
  Tensor gr1 = slice(gr, {ellipsis, first}), gr2 = slice(gr, {ellipsis, rest});
  Tensor x2 = slice(x, {ellipsis, rest});
  Tensor g1 = thin_qr_grad(q, slice(r, {ellipsis, first}), gq + matmul(x2, gr2, false, true), gr1);
  return concat({g1, matmul(q, gr2)}, -1);
}

/// x̄ of s, u, vt = svd(x, full_matrices=false) (u, vt given by the forward pass).
Tensor svd_grad(const Tensor& x, const Tensor& s, const Tensor& u, const Tensor& vt, const Grads& dy, bool uv) {
  Tensor core = diag_matrix(dy[0]);
  const int64_t m = x.shape()[-2], n = x.shape()[-1];
  Tensor extra;
  if (uv) {
    Tensor v = mT(vt), gu = dy[1], gv = mT(dy[2]);
    Tensor row = expand_dims(s, -2), col = expand_dims(s, -1);
    Tensor e = eye_as(s.shape()[-1], s);
    Tensor f = 1.0 / ((row + col) * (row - col) + e) - e;
    Tensor ju = f * matmul(u, gu, true, false), jv = f * matmul(v, gv, true, false);
    core = core + matmul(ju + mT(ju), diag_matrix(s)) + matmul(diag_matrix(s), jv + mT(jv));
    if (m > n) extra = matmul((gu - matmul(u, matmul(u, gu, true, false))) / row, vt);
    if (n > m) extra = matmul(u, mT((gv - matmul(v, matmul(vt, gv))) / row));
  }
  Tensor g = matmul(matmul(u, core), vt);
  return extra.defined() ? g + extra : g;
}

}  // namespace

EighResult eigh(const Tensor& x) {
  Tensor a = linalg_input("eigh", x, true);
  return eigh_symmetric((a + mT(a)) * 0.5);
}

EigResult eig(const Tensor& x) {
  Tensor a = linalg_input("eig", x, true);
  auto out = on_host({a}, [](const std::vector<Tensor>& h) {
    Tensor wr, wi, vr, vi;
    cpu::lapack::eig(h[0], wr, wi, vr, vi);
    return std::vector<Tensor>{wr, wi, vr, vi};
  });
  if (autodiff::active()) autodiff::record_no_gradient("Eig", {a}, out);
  return {{out[0], out[1]}, {out[2], out[3]}};
}

QRResult qr(const Tensor& x, const std::string& mode) {
  KILN_CHECK(mode == "reduced" || mode == "complete", ValueError,
             "qr: `mode` argument value not supported. Expected one of {'reduced', 'complete'}. Received: mode="
                 << mode);
  Tensor a = linalg_input("qr", x, false);
  const bool complete = mode == "complete";
  auto out = on_host({a}, [complete](const std::vector<Tensor>& h) {
    Tensor q, r;
    cpu::lapack::qr(h[0], complete, q, r);
    return std::vector<Tensor>{q, r};
  });
  Tensor q = out[0], r = out[1];
  if (autodiff::active())
    autodiff::record("QR", {a}, {q, r}, [a, q, r](const Grads& dy, const Needs&) {
      return Grads{qr_grad(a, q, r, dy[0], dy[1])};
    });
  return {q, r};
}

SVDResult svd(const Tensor& x, bool full_matrices, bool compute_uv) {
  Tensor a = linalg_input("svd", x, false);
  const int64_t m = a.shape()[-2], n = a.shape()[-1];
  const bool full = full_matrices && compute_uv && m != n;
  // The gradient needs the thin factors, so they are computed whenever a tape records.
  const bool uv = compute_uv || autodiff::active();
  auto out = on_host({a}, [full, uv](const std::vector<Tensor>& h) {
    Tensor u, s, vt;
    KILN_CHECK(cpu::lapack::svd(h[0], full, uv, u, s, vt), ValueError,
               "svd: the singular value decomposition did not converge for an input of shape "
                   << h[0].shape().to_string());
    return uv ? std::vector<Tensor>{u, s, vt} : std::vector<Tensor>{s};
  });
  Tensor s = uv ? out[1] : out[0];
  SVDResult result{compute_uv ? out[0] : Tensor(), s, compute_uv ? out[2] : Tensor()};
  if (!autodiff::active()) return result;
  if (full) {
    autodiff::record_no_gradient("SVDFullMatrices", {a}, {out[0], s, out[2]});
  } else if (compute_uv) {
    Tensor u = out[0], vt = out[2];
    autodiff::record("SVD", {a}, {s, u, vt}, [a, s, u, vt](const Grads& dy, const Needs&) {
      return Grads{svd_grad(a, s, u, vt, dy, true)};
    });
  } else {
    Tensor u = out[0], vt = out[2];
    autodiff::record("SingularValues", {a}, {s}, [a, s, u, vt](const Grads& dy, const Needs&) {
      return Grads{svd_grad(a, s, u, vt, dy, false)};
    });
  }
  return result;
}

}  // namespace kiln

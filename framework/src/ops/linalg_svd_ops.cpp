// keras.ops' SVD-based ops: lstsq, pinv and matrix_rank, as jnp.linalg computes them.
// lstsq is written with the differentiable SVD, so its gradient is JAX's. pinv has
// JAX's own rule (Golub and Pereyra's derivative of the pseudo-inverse), transposed:
//   ā = −Pᵀ·P̄·Pᵀ + (I − A·P)·P̄ᵀ·P·Pᵀ + Pᵀ·P·P̄ᵀ·(I − P·A).
#include <algorithm>
#include <cfloat>
#include <limits>
#include <vector>

#include "core/check.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/creation_ops.h"
#include "kiln/ops/linalg_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "ops/elementwise_promotion.h"
#include "ops/linalg_util.h"
#include "ops/op_util.h"

namespace kiln {

using namespace ops;

namespace {

double machine_eps(DType dtype) { return dtype == DType::float64 ? DBL_EPSILON : FLT_EPSILON; }

/// The largest singular value of each matrix, keeping its axis: s (..., k) -> (..., 1).
Tensor leading(const Tensor& s) { return slice(s, {ellipsis, Slice(0, 1)}); }

/// The pseudo-inverse of a (..., m, n), untaped.
Tensor pinv_value(const Tensor& a, double rtol) {
  autodiff::Pause pause;
  auto [u, s, vt] = svd(a, false, true);
  Tensor kept = where(s > leading(s) * rtol, s, full_like(s, std::numeric_limits<double>::infinity()));
  return matmul(vt, mT(u) / expand_dims(kept, -1), true, false);
}

}  // namespace

Tensor lstsq(const Tensor& a, const Tensor& b, std::optional<double> rcond) {
  check_concrete("lstsq", a);
  check_concrete("lstsq", b);
  KILN_CHECK(a.rank() == 2, ValueError, "lstsq: Expected a to have rank 2. Received: a.shape=" << a.shape().to_string());
  KILN_CHECK(b.rank() == 1 || b.rank() == 2, ValueError,
             "lstsq: Expected b to have rank 1 or 2. Received: b.shape=" << b.shape().to_string());
  KILN_CHECK(b.shape()[0] == a.shape()[0], ValueError,
             "lstsq: Expected b.shape[0] to be equal to a.shape[0]. Received: a.shape="
                 << a.shape().to_string() << ", b.shape=" << b.shape().to_string());
  common_device("lstsq", {a, b});
  auto [fa, fb] = keras_promote_pair_floating(a, b);
  const bool vector = fb.rank() == 1;
  if (vector) fb = expand_dims(fb, -1);
  const int64_t m = fa.shape()[0], n = fa.shape()[1];
  Tensor x;
  if (fa.size() == 0) {
    x = zeros(Shape({n, fb.shape()[1]}), fa.dtype()).to(fa.device());
  } else {
    const double eps = machine_eps(fa.dtype());
    const double rc = !rcond ? eps * static_cast<double>(std::max(m, n)) : *rcond < 0 ? eps : *rcond;
    auto [u, s, vt] = svd(fa, false, true);
    Tensor mask = logical_and(s > 0.0, s >= leading(s) * rc);
    Tensor s_inv = where(mask, 1.0 / where(mask, s, ones_like(s)), zeros_like(s));
    x = matmul(vt, expand_dims(s_inv, -1) * matmul(u, fb, true, false), true, false);
  }
  return vector ? squeeze(x, {-1}) : x;
}

Tensor pinv(const Tensor& x, std::optional<double> rcond) {
  Tensor a = linalg_input("pinv", x, false);
  const int64_t m = a.shape()[-2], n = a.shape()[-1];
  const double rtol = rcond.value_or(10.0 * static_cast<double>(std::max(m, n)) * machine_eps(a.dtype()));
  Tensor p = pinv_value(a, rtol);
  if (autodiff::active())
    autodiff::record("Pinv", {a}, {p}, [a, p](const Grads& dy, const Needs&) {
      Tensor gt = mT(dy[0]);  // P̄ᵀ (..., m, n)
      Tensor t1 = neg(matmul(matmul(p, dy[0], true, false), p, false, true));
      Tensor t2 = matmul(gt - matmul(a, matmul(p, gt)), matmul(p, p, false, true));
      Tensor t3 = matmul(matmul(p, p, true, false), gt - matmul(matmul(gt, p), a));
      return Grads{t1 + t2 + t3};
    });
  return p;
}

Tensor matrix_rank(const Tensor& x, std::optional<double> tol) {
  Tensor a = linalg_input("matrix_rank", x, false);
  autodiff::Pause pause;
  const int64_t m = a.shape()[-2], n = a.shape()[-1];
  Tensor s = svd(a, false, false).s;
  if (std::min(m, n) == 0) return cast(sum(s, -1), DType::int32);
  Tensor threshold = tol ? full_like(leading(s), *tol)
                         : leading(s) * (static_cast<double>(std::max(m, n)) * machine_eps(a.dtype()));
  return sum(cast(s > threshold, DType::int32), -1);
}

}  // namespace kiln

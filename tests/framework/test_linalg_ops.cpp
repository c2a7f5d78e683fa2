// The linear algebra ops (kiln/ops/linalg_ops.h): exact values worked by hand,
// round trips (a·a⁻¹ = I, q·r = a, u·diag(s)·vh = a), the errors, and the gradients
// against central differences in float64. The Keras oracle (ops_linalg) compares the
// same ops with Keras 3.15 on random batches.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "kiln/kiln.h"
#include "kiln/ops/linalg_ops.h"
#include "test_util.h"

namespace test_linalg_ops {

namespace k = kiln;
using kiln_test::check_gradients_ok;
using kiln_test::check_values;

namespace {

k::Tensor m64(std::initializer_list<std::initializer_list<double>> rows) { return k::Tensor(rows, k::float64); }

std::vector<double> flat(const k::Tensor& t) { return k::cast(t, k::float64).to_vector<double>(); }

/// Full-rank float64 values of `shape` (sin of a quadratic in the index: the sin of a linear
/// one would give rank-2 matrices).
k::Tensor irregular(const k::Shape& shape) {
  const k::Tensor i = kiln_test::iota(shape);
  return k::sin(i * i * 0.37 + i * 0.11 + 0.3);
}

/// A well-conditioned float64 matrix (..., n, n): sin-filled plus 4·I.
k::Tensor dominant(const k::Shape& batch, int64_t n) {
  std::vector<int64_t> dims = batch.dims();
  dims.push_back(n);
  dims.push_back(n);
  k::Tensor base = k::sin(kiln_test::iota(k::Shape(dims)) * 0.7);
  return base + k::eye(n, std::nullopt, k::float64) * 4.0;
}

}  // namespace

TEST_CASE("linalg: inv, det, slogdet and solve on known matrices") {
  const k::Tensor a = m64({{4, 7}, {2, 6}});
  check_values(k::inv(a), {0.6, -0.7, -0.2, 0.4}, 1e-12);
  check_values(k::matmul(k::inv(a), a), {1, 0, 0, 1}, 1e-12);
  check_values(k::det(m64({{1, 2}, {3, 4}})), {-2}, 1e-12);
  // A row swap and a 2 x 2 block: 2 · 3 · (1·1 − 4·2) = −42, through the LU path (n = 4).
  const k::Tensor p = m64({{0, 3, 0, 0}, {2, 0, 0, 0}, {0, 0, 1, 4}, {0, 0, 2, 1}});
  check_values(k::det(p), {42}, 1e-12);
  auto [sign, logabsdet] = k::slogdet(p);
  check_values(sign, {1}, 1e-12);
  check_values(logabsdet, {std::log(42.0)}, 1e-12);
  check_values(k::logdet(m64({{0, 2}, {3, 0}})), {std::log(6.0)}, 1e-12);
  check_values(k::slogdet(m64({{0, 2}, {3, 0}})).sign, {-1}, 1e-12);
  // Integers compute in float32.
  CHECK(k::det(k::Tensor({{2, 1}, {1, 3}})).dtype() == k::float32);
  check_values(k::det(k::Tensor({{2, 1}, {1, 3}})), {5}, 1e-6);
  // solve: a vector b, a matrix b, and a batch broadcast against one matrix.
  check_values(k::solve(m64({{3, 1}, {1, 2}}), k::Tensor({9.0, 8.0}, k::float64)), {2, 3}, 1e-12);
  const k::Tensor batch = dominant({2, 3}, 4), rhs = k::sin(kiln_test::iota({4, 2}));
  const k::Tensor x = k::solve(batch, rhs);
  CHECK(x.shape() == k::Shape({2, 3, 4, 2}));
  check_values(k::matmul(batch, x), flat(k::broadcast_to(rhs, {2, 3, 4, 2})), 1e-10);
}

TEST_CASE("linalg: singular matrices give JAX's values, not errors") {
  const k::Tensor s = m64({{1, 2, 3, 4}, {2, 4, 6, 8}, {1, 0, 1, 0}, {0, 1, 0, 1}});
  check_values(k::det(s), {0}, 1e-12);
  auto [sign, logabsdet] = k::slogdet(s);
  check_values(sign, {0}, 1e-12);
  CHECK(std::isinf(logabsdet.item<double>()));
  CHECK(logabsdet.item<double>() < 0);
  // solve and inv divide by the zero pivot.
  const k::Tensor y = k::inv(m64({{1, 2}, {2, 4}}));
  CHECK_FALSE(k::all(k::isfinite(y)).item<bool>());
  CHECK(k::matrix_rank(m64({{1, 2}, {2, 4}})).item<int32_t>() == 1);
}

TEST_CASE("linalg: cholesky, solve_triangular and cholesky_inverse") {
  const k::Tensor a = m64({{4, 2}, {2, 5}});
  check_values(k::cholesky(a), {2, 0, 1, 2}, 1e-12);
  check_values(k::cholesky(a, true), {2, 1, 0, 2}, 1e-12);
  check_values(k::cholesky_inverse(k::cholesky(a)), flat(k::inv(a)), 1e-12);
  check_values(k::cholesky_inverse(k::cholesky(a, true), true), flat(k::inv(a)), 1e-12);
  // Only the named triangle is read.
  const k::Tensor t = m64({{2, 100}, {1, 4}});
  check_values(k::solve_triangular(t, k::Tensor({2.0, 9.0}, k::float64), true), {1, 2}, 1e-12);
  CHECK_THROWS_WITH_AS(k::cholesky(m64({{1, 2}, {2, 1}})),
                       "cholesky: Cholesky decomposition failed: The input might not be a valid positive definite "
                       "matrix. Received input with shape (2, 2)",
                       k::ValueError);
}

TEST_CASE("linalg: decompositions reassemble their input") {
  const k::Tensor a = irregular({2, 5, 3});
  auto [q, r] = k::qr(a);
  CHECK(q.shape() == k::Shape({2, 5, 3}));
  check_values(k::matmul(q, r), flat(a), 1e-12);
  check_values(k::matmul(q, q, true, false), flat(k::broadcast_to(k::eye(3, std::nullopt, k::float64), {2, 3, 3})),
               1e-12);
  auto [qc, rc] = k::qr(a, "complete");
  CHECK(qc.shape() == k::Shape({2, 5, 5}));
  CHECK(rc.shape() == k::Shape({2, 5, 3}));
  check_values(k::matmul(qc, rc), flat(a), 1e-12);
  auto [u, s, vh] = k::svd(a, false);
  check_values(k::matmul(u * k::expand_dims(s, -2), vh), flat(a), 1e-12);
  check_values(k::svd(m64({{3, 0}, {0, -2}}), true, false).s, {3, 2}, 1e-12);
  CHECK_FALSE(k::svd(a, true, false).u.defined());
  auto [w, v] = k::eigh(m64({{2, 1}, {1, 2}}));
  check_values(w, {1, 3}, 1e-12);
  check_values(k::abs(v), {std::sqrt(0.5), std::sqrt(0.5), std::sqrt(0.5), std::sqrt(0.5)}, 1e-12);
  auto [values, vectors] = k::eig(m64({{0, -1}, {1, 0}}));
  check_values(values.first, {0, 0}, 1e-12);
  check_values(values.second, {1, -1}, 1e-12);  // the conjugate pair, positive part first
  auto [lu, pivots] = k::lu_factor(m64({{1, 2}, {3, 4}}));
  check_values(lu, {3, 4, 1.0 / 3, 2.0 / 3}, 1e-12);
  check_values(pivots, {1, 1}, 1e-12);
  CHECK(pivots.dtype() == k::int32);
}

TEST_CASE("linalg: norm, cdist, pinv and lstsq values") {
  const k::Tensor x = m64({{-4, -3, -2}, {-1, 0, 1}});
  check_values(k::norm(k::Tensor({3.0, 4.0})), {5}, 1e-6);
  check_values(k::norm(x), {std::sqrt(31.0)}, 1e-6);
  check_values(k::norm(x, 1), {5}, 1e-6);                       // the largest column sum
  check_values(k::norm(x, INFINITY), {9}, 1e-6);                // the largest row sum
  check_values(k::norm(x, -INFINITY, std::vector<int>{1}), {2, 0}, 1e-6);
  check_values(k::norm(x, 0, std::vector<int>{1}), {3, 2}, 1e-6);
  check_values(k::norm(m64({{3, 0}, {0, -2}}), "nuc"), {5}, 1e-6);
  CHECK(k::norm(x, {}, std::vector<int>{0}, true).shape() == k::Shape({1, 3}));
  CHECK(k::norm(k::Tensor({{1, 2}, {3, 4}})).dtype() == k::float32);
  CHECK(k::norm(x).dtype() == k::float32);  // float64 too, as in Keras
  check_values(k::cdist(m64({{0, 0}, {1, 1}}), m64({{1, 0}, {0, 1}})), {1, 1, 1, 1}, 1e-12);
  const k::Tensor tall = m64({{1, 2}, {3, 4}, {5, 6}});
  check_values(k::matmul(k::pinv(tall), tall), {1, 0, 0, 1}, 1e-12);
  check_values(k::lstsq(m64({{1, 0}, {0, 1}, {1, 1}}), k::Tensor({1.0, 2.0, 3.0}, k::float64)), {1, 2}, 1e-12);
  check_values(k::matrix_rank(tall), {2}, 1e-12);
}

TEST_CASE("linalg: shape errors name the op and the shapes") {
  CHECK_THROWS_WITH_AS(k::inv(k::zeros({2, 3})),
                       "inv: Expected a square matrix. Received non-square input with shape (2, 3)", k::ValueError);
  CHECK_THROWS_WITH_AS(k::det(k::zeros({3})),
                       "det: Expected input to have rank >= 2. Received input with shape (3,)", k::ValueError);
  CHECK_THROWS_WITH_AS(k::solve(k::zeros({2, 3, 3}), k::zeros({4, 3, 1})),
                       "solve: the batch shapes of `a` and `b` do not broadcast. Received: a.shape=(2, 3, 3), "
                       "b.shape=(4, 3, 1)",
                       k::ValueError);
  CHECK_THROWS_AS(k::solve(k::eye(3), k::zeros({4, 2})), k::ValueError);
  CHECK_THROWS_AS(k::qr(k::zeros({3, 3}), "raw"), k::ValueError);
  CHECK_THROWS_AS(k::norm(k::zeros({3, 3}), "nucc"), k::ValueError);
  CHECK_THROWS_AS(k::norm(k::zeros({3}), "fro", std::vector<int>{0}), k::ValueError);
  CHECK_THROWS_AS(k::norm(k::zeros({2, 3, 3}), 3, std::vector<int>{1, 2}), k::ValueError);
  CHECK_THROWS_AS(k::lstsq(k::zeros({3, 2}), k::zeros({4})), k::ValueError);
  CHECK_THROWS_AS(k::cdist(k::zeros({3, 2}), k::zeros({3, 4})), k::ValueError);
}

TEST_CASE("linalg: gradients match central differences") {
  const k::Tensor a = dominant({2}, 3), b = k::sin(kiln_test::iota({2, 3, 2}));
  check_gradients_ok("det", [](const auto& in) { return k::det(in[0]); }, {dominant({}, 4)});
  check_gradients_ok("det 3x3", [](const auto& in) { return k::det(in[0]); }, {a});
  check_gradients_ok("slogdet", [](const auto& in) { return k::slogdet(in[0]).logabsdet; }, {a});
  check_gradients_ok("inv", [](const auto& in) { return k::inv(in[0]); }, {a});
  check_gradients_ok("solve", [](const auto& in) { return k::solve(in[0], in[1]); }, {a, b});
  check_gradients_ok("solve_triangular", [](const auto& in) { return k::solve_triangular(in[0], in[1], true); },
                     {a, b});
  check_gradients_ok(
      "cholesky", [](const auto& in) { return k::cholesky(k::matmul(in[0], in[0], false, true)); }, {a});
  check_gradients_ok(
      "eigh", [](const auto& in) {
        auto [w, v] = k::eigh(in[0] + k::swapaxes(in[0], -1, -2));
        return k::concat({w, k::reshape(v * v, {2, 9})}, -1);  // v·v: free of the sign
      },
      {a});
  for (const k::Shape& shape : {k::Shape{4, 3}, k::Shape{3, 4}, k::Shape{3, 3}}) {
    const k::Tensor m = irregular(shape);
    check_gradients_ok("qr", [](const auto& in) {
      auto [q, r] = k::qr(in[0]);
      return k::concat({k::ravel(q), k::ravel(r)}, 0);
    }, {m});
    check_gradients_ok("qr complete", [](const auto& in) {
      auto [q, r] = k::qr(in[0], "complete");
      return k::concat({k::ravel(q), k::ravel(r)}, 0);
    }, {m});
    check_gradients_ok("svd", [](const auto& in) {
      auto [u, s, vh] = k::svd(in[0], false);
      return k::concat({s, k::ravel(u * u), k::ravel(vh * vh)}, 0);
    }, {m});
    check_gradients_ok("pinv", [](const auto& in) { return k::pinv(in[0]); }, {m});
    check_gradients_ok("singular values", [](const auto& in) { return k::svd(in[0], true, false).s; }, {m});
  }
  check_gradients_ok("lstsq", [](const auto& in) { return k::lstsq(in[0], in[1]); },
                     {irregular({5, 3}), k::cos(kiln_test::iota({5, 2}))});
  check_gradients_ok("cdist", [](const auto& in) { return k::cdist(in[0], in[1]); },
                     {k::sin(kiln_test::iota({3, 2})), k::cos(kiln_test::iota({4, 2}))});
}

}  // namespace test_linalg_ops

namespace test_linalg_ops {

TEST_CASE("linalg: ops without a gradient rule raise LookupError naming them") {
  const k::Tensor a = dominant({}, 3);
  auto gradient_of = [&](const std::function<k::Tensor(const k::Tensor&)>& f) {
    k::GradientTape tape;
    tape.watch(a);
    k::Tensor y = k::sum(f(a));
    return tape.gradient(y, a);
  };
  CHECK_THROWS_WITH_AS(gradient_of([](const k::Tensor& x) { return k::lu_factor(x).lu; }),
                       doctest::Contains("LuFactor"), k::LookupError);
  CHECK_THROWS_AS(gradient_of([](const k::Tensor& x) { return k::eig(x).eigenvalues.first; }), k::LookupError);
  CHECK_THROWS_AS(gradient_of([](const k::Tensor& x) { return k::svd(k::concat({x, x}, 0)).u; }), k::LookupError);
  // The reduced svd and the other decompositions have one.
  CHECK(gradient_of([](const k::Tensor& x) { return k::svd(k::concat({x, x}, 0), false).u; }).has_value());
}

}  // namespace test_linalg_ops

// The matrix and creation ops (kiln/ops/matrix_ops.h, creation_ops.h): values
// NumPy gives for the same calls, dtypes, error messages and finite-difference
// gradient checks (the Keras oracle group ops_array compares more cases).
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "kiln/kiln.h"
#include "test_util.h"

namespace test_matrix_ops {

namespace k = kiln;
using kiln_test::check_values;
using kiln_test::iota;

TEST_CASE("tril, triu, tri, eye and identity") {
  const k::Tensor x = iota({3, 3}) + 1.0;
  check_values(k::tril(x), {1, 0, 0, 4, 5, 0, 7, 8, 9});
  check_values(k::triu(x, 1), {0, 2, 3, 0, 0, 6, 0, 0, 0});
  check_values(k::tri(2, 3, 1), {1, 1, 0, 1, 1, 1});
  CHECK(k::tri(2).dtype() == k::float32);
  check_values(k::eye(2, 3, 1), {0, 1, 0, 0, 0, 1});
  check_values(k::identity(2, k::int32), {1, 0, 0, 1});
  CHECK(k::identity(2, k::int32).dtype() == k::int32);
  CHECK_THROWS_WITH_AS(k::tril(k::Tensor({1.0, 2.0})),
                       doctest::Contains("tril: expected a tensor with at least 2 axes, but received a tensor of shape "
                                         "(2,) and dtype float32"),
                       k::ValueError);
}

TEST_CASE("diag, diagflat, diagonal, trace and vander") {
  check_values(k::diag(k::Tensor({1.0, 2.0}), -1), {0, 0, 0, 1, 0, 0, 0, 2, 0});
  const k::Tensor m = iota({3, 4});
  check_values(k::diag(m, 1), {1, 6, 11});
  check_values(k::diagflat(k::Tensor({{1, 2}})), {1, 0, 0, 2});
  const k::Tensor d = k::diagonal(iota({2, 3, 4}), 1, 1, 2);
  CHECK(d.shape() == k::Shape({2, 3}));
  check_values(d, {1, 6, 11, 13, 18, 23});
  CHECK(k::diagonal(m, 7).shape() == k::Shape({0}));
  check_values(k::trace(m, -1), {4 + 9});
  const k::Tensor tb = k::trace(k::Tensor({{true, false}, {false, true}}));
  CHECK(tb.dtype() == k::int32);
  CHECK(tb.item<int>() == 2);
  check_values(k::vander(k::Tensor({2.0, 3.0}), 3), {4, 2, 1, 9, 3, 1});
  CHECK_THROWS_WITH_AS(k::diag(iota({2, 2, 2})), doctest::Contains("diag: expected a 1-D or 2-D tensor"), k::ValueError);
  CHECK_THROWS_WITH_AS(k::diagonal(m, 0, 1, -1), doctest::Contains("axis1 and axis2 cannot be the same"), k::ValueError);
}

TEST_CASE("dot, tensordot, inner, outer, vdot, kron and cross") {
  const k::Tensor a = iota({2, 3}), b = iota({3, 2});
  check_values(k::dot(a, b), {10, 13, 28, 40});
  CHECK(k::tensordot(a, b, 0).shape() == k::Shape({2, 3, 3, 2}));
  check_values(k::inner(a, a), {5, 14, 14, 50});
  check_values(k::vdot(a, b), {0 + 1 + 4 + 9 + 16 + 25});
  check_values(k::outer(k::Tensor({1, 2}), k::Tensor({3.0, 4.0})), {3, 4, 6, 8});
  CHECK(k::outer(k::Tensor({1, 2}), k::Tensor({3.0, 4.0})).dtype() == k::float32);
  const k::Tensor ki = k::dot(k::Tensor({{1, 2}}), k::Tensor({{3}, {4}}));
  CHECK(ki.dtype() == k::int32);
  CHECK(ki.item<int>() == 11);
  check_values(k::kron(k::Tensor({1.0, 2.0}), k::Tensor({{1.0, 10.0}})), {1, 10, 2, 20});
  check_values(k::cross(k::Tensor({1.0, 0.0, 0.0}), k::Tensor({0.0, 1.0, 0.0})), {0, 0, 1});
  check_values(k::cross(k::Tensor({1.0, 2.0}), k::Tensor({3.0, 4.0})), {-2});
  CHECK_THROWS_WITH_AS(k::tensordot(a, a, {1}, {0}),
                       doctest::Contains("tensordot: shape mismatch between axis 1 of a tensor of shape (2, 3) and "
                                         "dtype float64 and axis 0 of a tensor of shape (2, 3)"),
                       k::ShapeError);
  CHECK_THROWS_WITH_AS(k::cross(iota({4}), iota({3})),
                       doctest::Contains("Dimension must be either 2 or 3 for cross product"), k::ValueError);
}

TEST_CASE("arange, linspace, logspace, geomspace, full_like and meshgrid") {
  CHECK(k::arange(5).dtype() == k::int32);
  check_values(k::arange(1, 10, 3), {1, 4, 7});
  CHECK(k::arange(0, 1, 0.25).dtype() == k::float32);
  check_values(k::arange(0, 1, 0.25), {0, 0.25, 0.5, 0.75});
  CHECK(k::arange(3, 3).shape() == k::Shape({0}));
  check_values(k::linspace(0, 1, 4, false), {0, 0.25, 0.5, 0.75});
  check_values(k::logspace(0, 2, 3), {1, 10, 100}, 1e-4);
  check_values(k::geomspace(-1, -8, 4), {-1, -2, -4, -8}, 1e-5);
  CHECK_THROWS_WITH_AS(k::geomspace(0, 1), doctest::Contains("cannot include zero"), k::ValueError);
  CHECK_THROWS_AS(k::arange(0, 1, 0), k::ValueError);
  const k::Tensor f = k::full_like(k::Tensor({1, 2}), 7);
  CHECK(f.dtype() == k::int32);
  check_values(f, {7, 7});
  CHECK(k::empty_like(f, k::float32).dtype() == k::float32);
  const auto g = k::meshgrid({k::Tensor({1.0, 2.0, 3.0}), k::Tensor({4.0, 5.0})});
  CHECK(g[0].shape() == k::Shape({2, 3}));
  check_values(g[1], {4, 4, 4, 5, 5, 5});
  CHECK(k::meshgrid({iota({3}), iota({2})}, "ij")[0].shape() == k::Shape({3, 2}));
  CHECK_THROWS_AS(k::meshgrid({iota({3})}, "yx"), k::ValueError);
}

TEST_CASE("matrix ops' gradients match central differences") {
  const k::Tensor x = iota({3, 4}) * 0.1 - 0.4;
  kiln_test::check_gradients_ok("tril", [](const auto& in) { return k::square(k::tril(in[0], 1)); }, {x});
  kiln_test::check_gradients_ok("diagonal+trace",
                 [](const auto& in) { return k::square(k::diagonal(in[0], 1)) + k::trace(in[0]); }, {x});
  kiln_test::check_gradients_ok("diag", [](const auto& in) { return k::square(k::diag(in[0], -2)); }, {iota({3}) + 1.0});
  kiln_test::check_gradients_ok("tensordot",
                 [](const auto& in) { return k::tensordot(in[0], in[1], {0, 1}, {1, 0}); },
                 {iota({2, 3}) * 0.5, iota({3, 2}) - 1.0});
  kiln_test::check_gradients_ok("kron", [](const auto& in) { return k::kron(in[0], in[1]); }, {iota({2, 2}) + 1.0, iota({2}) - 0.5});
  kiln_test::check_gradients_ok("cross", [](const auto& in) { return k::cross(in[0], in[1]); },
                 {iota({2, 3}) * 0.3, iota({3}) - 1.2});
  kiln_test::check_gradients_ok("vander", [](const auto& in) { return k::vander(in[0], 4); }, {iota({3}) * 0.5 + 0.2});
}

}  // namespace test_matrix_ops

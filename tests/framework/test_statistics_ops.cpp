// Statistics, the reductions that skip NaN, and all/any/amax/amin/count_nonzero
// (kiln/ops/statistics_ops.h, reduce_ops.h): values worked out by hand (they
// agree with jnp on Keras's JAX backend), error texts, and the tape's gradients
// against central differences (k::check_gradients).
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "kiln/kiln.h"
#include "test_util.h"

namespace test_statistics_ops {

namespace k = kiln;
using kiln_test::check_values;
using kiln_test::message_of;

namespace {

const double kNan = std::nan("");

}  // namespace

TEST_CASE("all, any, amax, amin and count_nonzero") {
  k::Tensor x = k::Tensor({{0.0, 1.0, kNan}, {2.0, 3.0, 4.0}});
  k::Tensor a = k::all(x, 1);
  CHECK(a.dtype() == k::DType::bool_);
  check_values(a, {0, 1});
  check_values(k::any(x, 0), {1, 1, 1});
  check_values(k::all(x), {0});
  CHECK(k::any(k::zeros({2, 2}), {}, true).shape() == k::Shape{1, 1});
  check_values(k::amax(k::Tensor({{1, 7}, {3, 2}}), 0), {3, 7});
  check_values(k::amin(k::Tensor({{1, 7}, {3, 2}}), 1, true), {1, 2});
  k::Tensor c = k::count_nonzero(x, 1);
  CHECK(c.dtype() == k::DType::int32);
  check_values(c, {2, 3});
}

TEST_CASE("quantile methods, median and percentile") {
  k::Tensor x = k::Tensor({4.0, 1.0, 3.0, 2.0});
  check_values(k::quantile(x, 0.5), {2.5});
  check_values(k::quantile(x, 0.25), {1.75});
  check_values(k::quantile(x, 0.5, {}, "lower"), {2});
  check_values(k::quantile(x, 0.5, {}, "higher"), {3});
  check_values(k::quantile(x, 0.5, {}, "midpoint"), {2.5});
  check_values(k::quantile(x, 0.5, {}, "nearest"), {2});
  check_values(k::percentile(x, 75.0), {3.25});
  check_values(k::median(k::Tensor({3.0, 1.0, 2.0})), {2});
  CHECK(std::isnan(k::median(k::Tensor({3.0, kNan, 2.0})).item<double>()));
  check_values(k::nanmedian(k::Tensor({3.0, kNan, 1.0})), {2});
  k::Tensor qs = k::quantile(k::Tensor({{1.0, 5.0, 3.0}, {2.0, 0.0, 4.0}}), std::vector<double>{0.0, 1.0}, 1);
  CHECK(qs.shape() == k::Shape{2, 2});
  check_values(qs, {1, 0, 5, 4});
  CHECK(k::quantile(k::Tensor({1, 2, 3}), 0.5).dtype() == k::DType::float32);
  CHECK_HAS(message_of<k::ValueError>([&] { k::quantile(x, 1.5); }), "quantile: q must be in [0, 1], but received 1.5");
  CHECK_HAS(message_of<k::ValueError>([&] { k::quantile(x, 0.5, {}, "cubic"); }),
            "quantile: method must be one of 'linear', 'lower', 'higher', 'midpoint' or 'nearest', but received 'cubic'");
}

TEST_CASE("nan reductions skip NaN and give NaN (or -1) for NaN alone") {
  k::Tensor x = k::Tensor({{1.0, kNan, 3.0}, {kNan, kNan, kNan}});
  auto m = k::nanmean(x, 1).to_vector<double>();
  CHECK(m[0] == 2.0);
  CHECK(std::isnan(m[1]));
  check_values(k::nansum(x, 1), {4, 0});
  check_values(k::nanprod(x, 1), {3, 1});
  CHECK(k::nanvar(x, 1).to_vector<double>()[0] == 1.0);
  CHECK(k::nanmax(x, 1).to_vector<double>()[0] == 3.0);
  CHECK(std::isnan(k::nanmin(x, 1).to_vector<double>()[1]));
  k::Tensor am = k::nanargmax(x, 1);
  CHECK(am.dtype() == k::DType::int32);
  check_values(am, {2, -1});
  check_values(k::nanargmin(x), {0});
  CHECK(k::nansum(k::Tensor({true, true})).dtype() == k::DType::int32);
}

TEST_CASE("average, ptp, moments, bincount and histogram") {
  check_values(k::average(k::Tensor({1.0, 2.0, 3.0}), 0, k::Tensor({1.0, 1.0, 2.0})), {2.25});
  check_values(k::average(k::Tensor({{1.0, 2.0}, {3.0, 5.0}}), 1, k::Tensor({3.0, 1.0})), {1.25, 3.5});
  check_values(k::ptp(k::Tensor({{1, 7}, {3, 2}}), 1), {6, 1});
  auto [mean, variance] = k::moments(k::Tensor({1.0, 2.0, 3.0, 6.0}), 0);
  check_values(mean, {3});
  check_values(variance, {3.5});
  k::Tensor counts = k::bincount(k::Tensor({0, 1, 1, 3}));
  CHECK(counts.dtype() == k::DType::int32);
  check_values(counts, {1, 2, 0, 1});
  check_values(k::bincount(k::Tensor({0, 1, 1}), k::Tensor({0.5, 1.0, 2.0}), 4), {0.5, 3, 0, 0});
  CHECK_HAS(message_of<k::ValueError>([] { k::bincount(k::Tensor({0, -2})); }), "bincount: x must hold non-negative");
  auto [hist, edges] = k::histogram(k::Tensor({0.0, 1.0, 1.0, 2.5, 4.0, 5.0, 5.0}), 5);
  check_values(hist, {1, 2, 1, 0, 3});
  check_values(edges, {0, 1, 2, 3, 4, 5});
  CHECK_HAS(message_of<k::ValueError>([] { k::histogram(k::zeros({2, 2})); }), "Input tensor must be 1-dimensional");
  CHECK_HAS(message_of<k::ShapeError>([] { k::average(k::zeros({2, 3}), 1, k::zeros({2})); }),
            "average: weights must have x's shape (2, 3) or be 1-D of the length of axis 1");
}

TEST_CASE("gradients of quantile, median, nanvar, prod and average") {
  k::Tensor x = k::Tensor({{0.3, -1.2, 2.5, 0.7, 0.1}, {1.1, 0.2, -0.4, 3.0, 2.2}});
  kiln_test::check_gradients_ok("quantile", [](const std::vector<k::Tensor>& in) { return k::quantile(in[0], 0.3, 1); }, {x});
  kiln_test::check_gradients_ok("median", [](const std::vector<k::Tensor>& in) { return k::median(in[0], 0); }, {x});
  kiln_test::check_gradients_ok("nanvar", [](const std::vector<k::Tensor>& in) { return k::nanvar(in[0], 1); }, {x});
  kiln_test::check_gradients_ok("prod through zeros", [](const std::vector<k::Tensor>& in) { return k::prod(in[0], 1); },
                {k::Tensor({{1.5, 0.0, -2.0}, {0.0, 0.0, 3.0}, {0.5, 2.0, -1.0}})});
  kiln_test::check_gradients_ok("nanprod", [](const std::vector<k::Tensor>& in) { return k::nanprod(in[0], {0, 1}); }, {x});
  kiln_test::check_gradients_ok("ptp", [](const std::vector<k::Tensor>& in) { return k::ptp(in[0], 1); }, {x});
  kiln_test::check_gradients_ok("average", [](const std::vector<k::Tensor>& in) { return k::average(in[0], 1, in[1]); },
                {x, k::Tensor({0.5, 1.0, 2.0, 1.5, 0.7})});
}

}  // namespace test_statistics_ops

// Sorting, searching, cumulative and segment ops (kiln/ops/sort_ops.h,
// cumulative_ops.h, segment_ops.h): values worked out by hand (they agree with
// jnp on Keras's JAX backend), error texts, and the tape's gradients against
// central differences (k::check_gradients). tests/oracle/oracle_ops_reduce.py
// compares the same ops with Keras on many more inputs.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "kiln/kiln.h"
#include "test_util.h"

namespace test_sort_ops {

namespace k = kiln;
using kiln_test::check_values;
using kiln_test::message_of;

namespace {

const double kNan = std::nan("");

}  // namespace

TEST_CASE("sort and argsort are stable and put NaN last") {
  k::Tensor x = k::Tensor(std::vector<double>{2, 1, 2, kNan, 1}, k::Shape{5});
  k::Tensor s = k::sort(x);
  auto v = s.to_vector<double>();
  CHECK(v[0] == 1);
  CHECK(v[3] == 2);
  CHECK(std::isnan(v[4]));
  k::Tensor i = k::argsort(x);
  CHECK(i.dtype() == k::DType::int32);
  check_values(i, {1, 4, 0, 2, 3});
  check_values(k::sort(k::Tensor({{3, 1}, {0, 2}}), 0), {0, 1, 3, 2});
  check_values(k::argsort(k::Tensor(5.0)), {0});
}

TEST_CASE("top_k gives the largest values first, ties by position") {
  auto [values, indices] = k::top_k(k::Tensor({{1.0, 3.0, 3.0, -1.0}, {0.5, 0.0, 2.0, 1.0}}), 2);
  CHECK(values.shape() == k::Shape{2, 2});
  check_values(values, {3, 3, 2, 1});
  CHECK(indices.dtype() == k::DType::int32);
  check_values(indices, {1, 2, 2, 3});
  CHECK_HAS(message_of<k::ValueError>([] { k::top_k(k::zeros({2, 3}), 4); }),
            "top_k: k must be in [0, 3] (the last axis of shape (2, 3)), but received k=4");
}

TEST_CASE("in_top_k, searchsorted, digitize and isin") {
  k::Tensor preds = k::Tensor({{0.1, 0.5, 0.4}, {0.3, 0.3, 0.4}, {kNan, 0.2, 0.1}});
  k::Tensor hit = k::in_top_k(k::Tensor({0, 2, 0}), preds, 1);
  CHECK(hit.dtype() == k::DType::bool_);
  check_values(hit, {0, 1, 0});
  k::Tensor seq = k::Tensor({1.0, 2.0, 2.0, 5.0}), at = k::Tensor({2.0, 3.0, 0.0, 6.0});
  check_values(k::searchsorted(seq, at), {1, 3, 0, 4});
  check_values(k::searchsorted(seq, at, "right"), {3, 3, 0, 4});
  CHECK(k::searchsorted(seq, at).dtype() == k::DType::int32);
  check_values(k::digitize(k::Tensor({-1.0, 0.0, 0.5, 1.0, 2.0}), k::Tensor({0.0, 1.0})), {0, 1, 1, 2, 2});
  check_values(k::digitize(k::Tensor({-1.0, 0.0, 0.5, 1.0, 2.0}), k::Tensor({1.0, 0.0})), {2, 1, 1, 0, 0});
  check_values(k::isin(k::Tensor({1, 2, 3}), k::Tensor({2, 5})), {0, 1, 0});
  check_values(k::isin(k::Tensor({1, 2, 3}), k::Tensor({2, 5}), false, true), {1, 0, 1});
  CHECK_HAS(message_of<k::ValueError>([] { k::searchsorted(k::zeros({2, 2}), k::zeros({3})); }),
            "only supports 1-D sorted sequences. Received: sorted_sequence.shape=(2, 2)");
  CHECK_HAS(message_of<k::ValueError>([] { k::searchsorted(k::zeros({2}), k::zeros({3}), "middle"); }),
            "side must be 'left' or 'right'");
  CHECK_HAS(message_of<k::TypeError>([] { k::in_top_k(k::zeros({2}), k::zeros({2, 3}), 1); }),
            "in_top_k: targets must be integer class indices");
}

TEST_CASE("cumsum and cumprod follow jnp's dtypes and axes") {
  k::Tensor b = k::cumsum(k::Tensor({true, false, true, true}));
  CHECK(b.dtype() == k::DType::int32);
  check_values(b, {1, 1, 2, 3});
  check_values(k::cumsum(k::Tensor({{1, 2}, {3, 4}})), {1, 3, 6, 10});
  check_values(k::cumsum(k::Tensor({{1, 2}, {3, 4}}), 0), {1, 2, 4, 6});
  check_values(k::cumprod(k::Tensor({{1.0, 2.0, 3.0}, {2.0, 0.0, 5.0}}), 1), {1, 2, 6, 2, 0, 0});
  CHECK(k::cumsum(k::Tensor({1, 2}), std::nullopt, k::DType::float32).dtype() == k::DType::float32);
  check_values(k::nancumsum(k::Tensor({1.0, kNan, 2.0})), {1, 1, 3});
  check_values(k::nancumprod(k::Tensor({2.0, kNan, 3.0})), {2, 2, 6});
  check_values(k::diff(k::Tensor({1.0, 4.0, 9.0, 16.0}), 2), {2, 2});
  check_values(k::trapezoid(k::Tensor({1.0, 2.0, 3.0})), {4});
  check_values(k::trapezoid(k::Tensor({1.0, 2.0, 3.0}), k::Tensor({0.0, 1.0, 3.0})), {6.5});
  CHECK_HAS(message_of<k::ValueError>([] { k::diff(k::zeros({3}), -1); }), "diff: order must be non-negative");
}

TEST_CASE("segment reductions drop ids outside the segments") {
  k::Tensor data = k::Tensor({1.0, 2.0, 3.0, 4.0, 5.0}), ids = k::Tensor({0, 0, 2, 1, 7});
  check_values(k::segment_sum(data, ids, 3), {3, 4, 3});
  check_values(k::segment_prod(data, ids, 3), {2, 4, 3});
  auto lows = k::segment_min(data, ids, 4).to_vector<double>();
  CHECK(lows[2] == 3);
  CHECK(lows[3] == std::numeric_limits<double>::infinity());  // an empty segment
  check_values(k::segment_max(data, ids, 3), {2, 4, 3});
  check_values(k::segment_sum(data, ids), {3, 4, 3, 0, 0, 0, 0, 5});
  check_values(k::segment_max(k::Tensor({{1, 5}, {4, 2}}), k::Tensor({1, 1}), 2),
               {-2147483648.0, -2147483648.0, 4, 5});
  CHECK_HAS(message_of<k::ValueError>([] { k::segment_sum(k::zeros({4, 2}), k::Tensor({0, 1}), 2); }),
            "segment_sum: Argument `segment_ids` and `data` should have same leading dimension. Got (2,) v.s. (4, 2).");
  CHECK_HAS(message_of<k::ValueError>([] { k::segment_max(k::zeros({4}), k::zeros({4, 1}, k::DType::int32), 2); }),
            "segment_max: Argument `segment_ids` should be an 1-D vector, got shape: (4, 1)");
}

TEST_CASE("gradients of sort, top_k, cumprod through zeros and segment_max") {
  k::Tensor x = k::Tensor({{0.3, -1.2, 2.5, 0.7}, {1.1, 0.2, -0.4, 3.0}});
  kiln_test::check_gradients_ok("sort", [](const std::vector<k::Tensor>& in) { return k::sort(in[0], 0); }, {x});
  kiln_test::check_gradients_ok("top_k", [](const std::vector<k::Tensor>& in) { return k::top_k(in[0], 3).first; }, {x});
  kiln_test::check_gradients_ok("cumprod", [](const std::vector<k::Tensor>& in) { return k::cumprod(in[0], 1); },
               {k::Tensor({{1.5, 0.0, -2.0, 0.5}, {0.0, 0.0, 3.0, 1.0}})});
  kiln_test::check_gradients_ok("cumsum", [](const std::vector<k::Tensor>& in) { return k::cumsum(in[0]); }, {x});
  kiln_test::check_gradients_ok("segment_max", [](const std::vector<k::Tensor>& in) {
    return k::segment_max(in[0], k::Tensor({1, 0}), 2);
  }, {x});
  kiln_test::check_gradients_ok("trapezoid", [](const std::vector<k::Tensor>& in) { return k::trapezoid(in[0], in[1], 1.0, 0); },
               {x, k::Tensor({{0.0, 0.1, 0.2, 0.3}, {1.0, 0.5, 0.9, 1.3}})});
}

}  // namespace test_sort_ops

// The array manipulation ops (kiln/ops/shape_ops.h): values NumPy gives for the
// same calls, the error messages, and finite-difference gradient checks (the
// Keras oracle group ops_array compares them with Keras on more cases).
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include "kiln/kiln.h"
#include "test_util.h"

namespace test_shape_ops {

namespace k = kiln;
using kiln_test::check_values;
using kiln_test::iota;

TEST_CASE("flip, roll, rot90, moveaxis and swapaxes reorder entries as NumPy") {
  const k::Tensor x = iota({2, 3});
  check_values(k::flip(x), {5, 4, 3, 2, 1, 0});
  check_values(k::flip(x, std::vector<int>{1}), {2, 1, 0, 5, 4, 3});
  check_values(k::flipud(x), {3, 4, 5, 0, 1, 2});
  check_values(k::roll(x, {1}), {5, 0, 1, 2, 3, 4});
  check_values(k::roll(x, {-1, 4}, std::vector<int>{0, 1}), {5, 3, 4, 2, 0, 1});
  const k::Tensor r = k::rot90(x);
  CHECK(r.shape() == k::Shape({3, 2}));
  check_values(r, {2, 5, 1, 4, 0, 3});
  CHECK(k::moveaxis(iota({2, 3, 4}), {0}, {-1}).shape() == k::Shape({3, 4, 2}));
  CHECK(k::swapaxes(iota({2, 3, 4}), 0, 2).shape() == k::Shape({4, 3, 2}));
  check_values(k::ravel(k::swapaxes(x, 0, 1)), {0, 3, 1, 4, 2, 5});
}

TEST_CASE("repeat, unstack, append and the stacks") {
  const k::Tensor x = iota({2, 2});
  check_values(k::repeat(x, {2}), {0, 0, 1, 1, 2, 2, 3, 3});
  check_values(k::repeat(x, {0, 3}, 1), {1, 1, 1, 3, 3, 3});
  const auto parts = k::unstack(x, std::nullopt, 1);
  REQUIRE(parts.size() == 2);
  check_values(parts[1], {1, 3});
  check_values(k::append(x, k::Tensor({7, 8})), {0, 1, 2, 3, 7, 8});
  CHECK(k::append(x, k::Tensor({7, 8})).dtype() == k::float64);
  CHECK(k::hstack({iota({2}), iota({3})}).shape() == k::Shape({5}));
  CHECK(k::vstack({iota({3}), iota({2, 3})}).shape() == k::Shape({3, 3}));
  CHECK(k::dstack({iota({3}), iota({3})}).shape() == k::Shape({1, 3, 2}));
}

TEST_CASE("array_split cuts unevenly, hsplit and its kin only evenly") {
  const auto parts = k::array_split(iota({7}), 3);
  REQUIRE(parts.size() == 3);
  CHECK(parts[0].shape() == k::Shape({3}));
  check_values(parts[2], {5, 6});
  const auto at = k::array_split(iota({5}), {1, 3, 9});
  REQUIRE(at.size() == 4);
  check_values(at[1], {1, 2});
  CHECK(at[3].shape() == k::Shape({0}));
  CHECK(k::hsplit(iota({2, 4}), 2)[1].shape() == k::Shape({2, 2}));
  CHECK_THROWS_WITH_AS(k::vsplit(iota({5, 2}), 2),
                       doctest::Contains("vsplit: array split does not result in an equal division: axis 0 of a tensor "
                                         "of shape (5, 2) and dtype float64 into 2 parts"),
                       k::ValueError);
  CHECK_THROWS_WITH_AS(k::dsplit(iota({5, 2}), 2), doctest::Contains("dsplit: expected a tensor with at least 3 axes"),
                       k::ValueError);
}

TEST_CASE("pad: constant, reflect, symmetric, edge and wrap") {
  const k::Tensor x = iota({3});
  check_values(k::pad(x, {{2, 1}}, "constant", 9), {9, 9, 0, 1, 2, 9});
  check_values(k::pad(x, {{3, 3}}, "reflect"), {1, 2, 1, 0, 1, 2, 1, 0, 1});
  check_values(k::pad(x, {{4, 2}}, "symmetric"), {2, 2, 1, 0, 0, 1, 2, 2, 1});
  check_values(k::pad(x, {{1, 2}}, "edge"), {0, 0, 1, 2, 2, 2});
  check_values(k::pad(x, {{2, 2}}, "wrap"), {1, 2, 0, 1, 2, 0, 1});
  CHECK(k::pad(iota({2, 3}), {{1, 0}, {0, 2}}).shape() == k::Shape({3, 5}));
  CHECK_THROWS_WITH_AS(k::pad(x, {{1, 1}}, "reflect", 2.0),
                       doctest::Contains("`constant_values` can only be provided when `mode == 'constant'`"),
                       k::ValueError);
  CHECK_THROWS_WITH_AS(k::pad(iota({2, 3}), {{1, 1}, {1, 1}, {1, 1}}),
                       doctest::Contains("`pad_width` must have the same length as `x.shape`. Received: pad_width of "
                                         "length 3 and x.shape=(2, 3)"),
                       k::ValueError);
  CHECK_THROWS_AS(k::pad(x, {{1, 1}}, "median"), k::ValueError);
}

TEST_CASE("take, take_along_axis, select and slice_update") {
  const k::Tensor x = iota({3, 4});
  check_values(k::take(x, k::Tensor({0, -1, 5})), {0, 11, 5});
  check_values(k::take(x, k::Tensor({2, -3}), 0), {8, 9, 10, 11, 0, 1, 2, 3});
  check_values(k::take_along_axis(x, k::Tensor({{3}, {0}, {-2}}), 1), {3, 4, 10});
  CHECK_THROWS_WITH_AS(k::take_along_axis(x, k::Tensor({1, 2}), 1),
                       doctest::Contains("take_along_axis: indices and x must have the same number of axes"),
                       k::ValueError);
  CHECK_THROWS_AS(k::take(x, k::Tensor({0.5})), k::TypeError);
  const k::Tensor c = k::Tensor({true, false, false}), d = k::Tensor({true, true, false});
  check_values(k::select({c, d}, {iota({3}), iota({3}) + 10.0}, -1), {0, 11, -1});
  const k::Tensor u = k::slice_update(x, {2, 3}, k::fill({2, 2}, -1, k::float64));
  check_values(k::ravel(u), {0, 1, 2, 3, 4, 5, -1, -1, 8, 9, -1, -1});  // the start is clamped to (1, 2)
}

TEST_CASE("depth_to_space and space_to_depth are inverse pixel shuffles") {
  const k::Tensor x = iota({1, 2, 2, 4});
  const k::Tensor up = k::depth_to_space(x, 2);
  CHECK(up.shape() == k::Shape({1, 4, 4, 1}));
  check_values(k::ravel(up), {0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15});
  check_values(k::ravel(k::space_to_depth(up, 2)), k::ravel(x).to_vector<double>());
  CHECK(k::space_to_depth(iota({1, 3, 4, 6}), 2, "channels_first").shape() == k::Shape({1, 12, 2, 3}));
  CHECK_THROWS_WITH_AS(k::depth_to_space(iota({1, 2, 2, 6}), 2),
                       doctest::Contains("Channels (6) must be divisible by block_size**2 (4)"), k::ValueError);
  CHECK_THROWS_WITH_AS(k::space_to_depth(iota({2, 4}), 2),
                       doctest::Contains("`space_to_depth` requires a 4D input tensor. Received: x.shape=(2, 4)"),
                       k::ValueError);
}

TEST_CASE("shape ops' gradients match central differences") {
  const k::Tensor x = iota({3, 4}) * 0.1 + 0.3;
  kiln_test::check_gradients_ok("flip+roll", [](const auto& in) { return k::roll(k::flip(in[0]), {5}) * in[0]; }, {x});
  kiln_test::check_gradients_ok("pad reflect",
                [](const auto& in) { return k::square(k::pad(in[0], {{2, 1}, {3, 2}}, "reflect")); }, {x});
  kiln_test::check_gradients_ok("pad symmetric", [](const auto& in) { return k::square(k::pad(in[0], {{5, 4}}, "symmetric")); },
                {iota({3}) + 1.0});
  kiln_test::check_gradients_ok("take_along_axis",
                [](const auto& in) { return k::square(k::take_along_axis(in[0], k::Tensor({{1, 1, 0}}), 0)); },
                {iota({2, 3}) + 1.0});
  kiln_test::check_gradients_ok("repeat", [](const auto& in) { return k::square(k::repeat(in[0], {2, 0, 3}, 0)); }, {iota({3, 2})});
  kiln_test::check_gradients_ok("slice_update",
                [](const auto& in) { return k::square(k::slice_update(in[0], {1, 1}, in[1])); },
                {x, iota({2, 2}) - 2.0});
}

}  // namespace test_shape_ops

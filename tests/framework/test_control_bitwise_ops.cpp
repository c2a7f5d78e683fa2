// keras.ops' functional control flow (fori_loop, scan, switch_, map,
// associative_scan, vectorize, jvp), bitwise and integer maths and the layout
// utilities: known values, the same results inside a kiln::function trace as
// eagerly (for several values of what a branch or a bound depends on),
// central-difference gradients through the loops, and the error messages.
// tests/oracle/oracle_ops_control.py compares them with Keras at large.
#include <doctest/doctest.h>
#include <kiln/kiln.h>
#include <kiln/ops/bitwise_ops.h>
#include <kiln/ops/functional_ops.h>
#include <kiln/ops/layout_ops.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "test_util.h"

namespace k = kiln;
using kiln_test::contains;
using kiln_test::message_of;
using TL = std::vector<k::Tensor>;

namespace {

k::Tensor ints(std::vector<int32_t> v) {
  const auto n = static_cast<int64_t>(v.size());
  return k::Tensor(v, k::Shape{n});
}

k::Tensor poly_step(const k::Tensor& i, const k::Tensor& s) { return s * 0.9 + k::sin(s) + k::cast(i, s.dtype()); }

}  // namespace

TEST_CASE("fori_loop: sums the index as Keras's example does, and a tensor bound stays live in a trace") {
  k::Tensor total = k::fori_loop(0, 10, [](const k::Tensor& i, const k::Tensor& s) { return s + i; }, k::Tensor(0));
  CHECK(total.item<int32_t>() == 45);
  auto f = k::function([](const k::Tensor& s, const k::Tensor& n) { return k::fori_loop(0, n, poly_step, s); },
                       {.name = "fori_traced"});
  k::Tensor s0({0.3, -0.2});
  for (int n : {3, 0, 5, 1}) {
    k::Tensor traced = f(s0, k::Tensor(static_cast<int32_t>(n)));
    k::Tensor eager = k::fori_loop(0, n, poly_step, s0);
    INFO("n = ", n);
    kiln_test::check_values(traced, eager.to_vector<double>(), 1e-12);
  }
  CHECK(f.tracing_count() == 1);
}

TEST_CASE("fori_loop and scan: gradients match central differences") {
  kiln_test::check_gradients_ok(
      "fori_loop", [](const TL& in) { return k::sum(k::fori_loop(1, 4, poly_step, in[0])); },
      {k::Tensor({0.4, -0.7, 1.1})});
  kiln_test::check_gradients_ok(
      "scan",
      [](const TL& in) {
        auto [c, ys] = k::scan(
            [](const k::Tensor& carry, const k::Tensor& x) { return std::pair{carry * 0.5 + k::sin(x), carry * x}; },
            in[0], in[1]);
        return k::sum(c) + k::sum(k::square(ys));
      },
      {k::Tensor({0.2, -0.5}), k::Tensor({{0.1, 0.3}, {-0.4, 0.8}, {0.9, -0.2}})});
  kiln_test::check_gradients_ok(
      "associative_scan",
      [](const TL& in) {
        return k::sum(k::square(k::associative_scan([](const k::Tensor& a, const k::Tensor& b) { return a * b; },
                                                    in[0], true)));
      },
      {k::Tensor({0.5, 1.5, -0.7, 1.2})});
}

TEST_CASE("fori_loop: a gradient taken inside a trace follows each call's bound") {
  auto grad_of = [](const k::Tensor& s, const k::Tensor& n) {
    k::GradientTape tape;
    tape.watch(s);
    k::Tensor y = k::sum(k::fori_loop(0, n, poly_step, s));
    return *tape.gradient(y, s);
  };
  auto f = k::function(grad_of, {.name = "fori_grad"});
  k::Tensor s0 = k::Tensor({0.3, -0.2, 0.9}, k::DType::float64);
  for (int n : {2, 4, 0, 3}) {
    INFO("n = ", n);
    k::Tensor n_t(static_cast<int32_t>(n));
    kiln_test::check_values(f(s0, n_t), grad_of(s0, n_t).to_vector<double>(), 1e-12);
  }
  CHECK(f.tracing_count() == 1);
}

TEST_CASE("scan, map and associative_scan: traced equals eager for new values of the same shape") {
  auto body = [](const k::Tensor& c, const k::Tensor& xs) {
    auto [last, ys] = k::scan(
        [](const k::Tensor& carry, const k::Tensor& x) { return std::pair{carry * 0.5 + k::sin(x), carry * x}; }, c,
        xs, {.reverse = true});
    k::Tensor m = k::map([](const k::Tensor& r) { return k::sum(k::square(r)); }, xs);
    k::Tensor p = k::associative_scan([](const k::Tensor& a, const k::Tensor& b) { return a + b; }, xs, false, 1);
    return std::vector<k::Tensor>{last, ys, m, p};
  };
  auto f = k::function(body, {.name = "scans"});
  for (int i = 0; i < 3; ++i) {
    k::Tensor c = k::Tensor({0.1 * i, -0.3}, k::DType::float64);
    k::Tensor xs = k::Tensor({{0.5, -1.0 * i}, {0.25 * i, 2.0}, {1.5, 0.75}}, k::DType::float64);
    auto traced = f(c, xs);
    auto eager = body(c, xs);
    REQUIRE(traced.size() == eager.size());
    for (std::size_t j = 0; j < eager.size(); ++j) kiln_test::check_values(traced[j], eager[j].to_vector<double>(), 1e-12);
  }
  CHECK(f.tracing_count() == 1);
}

TEST_CASE("scan: cumulative sums, reverse keeps ys in xs' order, and a mismatched carry is an error") {
  k::Tensor xs({1.0, 2.0, 3.0, 4.0});
  auto step = [](const k::Tensor& c, const k::Tensor& x) { return std::pair{c + x, c + x}; };
  auto [last, sums] = k::scan(step, k::Tensor(0.0), xs);
  CHECK(last.item<double>() == 10.0);
  kiln_test::check_values(sums, {1, 3, 6, 10});
  auto [rlast, rsums] = k::scan(step, k::Tensor(0.0), xs, {.reverse = true});
  CHECK(rlast.item<double>() == 10.0);
  kiln_test::check_values(rsums, {10, 9, 7, 4});
  auto msg = message_of<k::ValueError>([&] {
    k::scan([](const k::Tensor& c, const k::Tensor& x) { return std::pair{k::stack({c, c}), x}; }, k::Tensor(0.0), xs);
  });
  CHECK(contains(msg, "scan: f's new carry"));
  CHECK(contains(msg, "()], but received ["));
  CHECK(contains(msg, " (2,)]"));
  CHECK(contains(message_of<k::ValueError>([&] { k::scan(step, k::Tensor(0.0), xs, {.unroll = 0}); }),
                 "Received: unroll=0"));
  CHECK(contains(message_of<k::ValueError>([&] {
                   k::scan([](const TL& c, const TL&) { return std::pair{c, c}; }, TL{k::Tensor(0.0)});
                 }),
                 "`length` must be given"));
}

TEST_CASE("switch_: clamps the index, and inside a trace each call picks its branch") {
  std::vector<k::SwitchBranch> branches{[](const TL& o) { return TL{o[0] + o[1]}; },
                                        [](const TL& o) { return TL{o[0] - o[1]}; },
                                        [](const TL& o) { return TL{o[0] * o[1]}; }};
  const k::Tensor x(2.0), y(0.5);
  auto pick = [&](int i) { return k::switch_(k::Tensor(static_cast<int32_t>(i)), branches, {x, y})[0].item<double>(); };
  CHECK(pick(-3) == 2.5);
  CHECK(pick(1) == 1.5);
  CHECK(pick(2) == 1.0);
  CHECK(pick(9) == 1.0);
  auto f = k::function([&](const k::Tensor& i) { return k::switch_(i, branches, {x, y})[0]; }, {.name = "switch"});
  for (int i : {0, 2, 1, 5, -1}) CHECK(f(k::Tensor(static_cast<int32_t>(i))).item<double>() == pick(i));
  CHECK(f.tracing_count() == 1);
  CHECK(contains(message_of<k::TypeError>([&] { k::switch_(k::Tensor(1.0), branches, {x, y}); }),
                 "must be a scalar integer, but received float"));
  CHECK(contains(message_of<k::ValueError>([&] { k::switch_(k::Tensor(0), {}, {x}); }), "Empty branch sequence"));
}

TEST_CASE("map, vectorize and jvp: known values") {
  k::Tensor m({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}});
  kiln_test::check_values(k::map([](const k::Tensor& r) { return k::sum(r); }, m), {3, 7, 11});
  auto dot = k::vectorize([](const TL& a) { return k::sum(a[0] * a[1]); }, "(n),(n)->()");
  kiln_test::check_values(dot({m, k::Tensor({1.0, -1.0})}), {-1, -1, -1});
  CHECK(contains(message_of<k::ValueError>([&] { dot({m, k::Tensor({1.0, 2.0, 3.0})}); }),
                 "inconsistent size for core dimension 'n'"));
  // d/dt of x^3 at x = 2 along t = 0.5: 3 x^2 t = 6.
  auto [ys, ts] = k::jvp([](const TL& a) { return TL{a[0] * a[0] * a[0]}; }, {k::Tensor(2.0)}, {k::Tensor(0.5)});
  CHECK(ys[0].item<double>() == 8.0);
  CHECK(ts[0].item<double>() == doctest::Approx(6.0));
}

TEST_CASE("bitwise ops: values, promotion, shifts past the width, and float inputs are errors") {
  k::Tensor a = ints({12, -8, 7, 0}), b = ints({10, 3, -1, 5});
  kiln_test::check_values(k::bitwise_and(a, b), {8, 0, 7, 0});
  kiln_test::check_values(k::bitwise_or(a, b), {14, -5, -1, 5});
  kiln_test::check_values(k::bitwise_xor(a, b), {6, -5, -8, 5});
  kiln_test::check_values(k::bitwise_invert(a), {-13, 7, -8, -1});
  kiln_test::check_values(k::left_shift(a, ints({1, 2, 32, -1})), {24, -32, 0, 0});
  kiln_test::check_values(k::right_shift(a, ints({2, 40, 1, 3})), {3, -1, 3, 0});
  k::Tensor u = k::cast(ints({200, 3}), k::DType::uint8);
  CHECK(k::bitwise_and(u, k::cast(ints({7, 7}), k::DType::uint8)).dtype() == k::DType::uint8);
  CHECK(k::bitwise_and(u, ints({7, 7})).dtype() == k::DType::int32);
  CHECK(k::left_shift(k::Tensor(true), k::Tensor(true)).dtype() == k::DType::int32);
  kiln_test::check_values(k::right_shift(u, k::cast(ints({1, 9}), k::DType::uint8)), {100, 0});
  auto msg = message_of<k::TypeError>([&] { k::bitwise_and(k::Tensor({1.0f}), ints({1})); });
  CHECK(contains(msg, "bitwise_and: expected integer or bool tensors, but received float32 and int32"));
  CHECK(contains(message_of<k::ValueError>([&] { k::gcd(k::Tensor(true), k::Tensor(false)); }),
                 "gcd: expected integer tensors"));
}

TEST_CASE("gcd, lcm and nextafter: values and exact float bits") {
  kiln_test::check_values(k::gcd(ints({12, -8, 0, 0, 7}), ints({18, 12, 5, 0, -21})), {6, 4, 5, 0, 7});
  kiln_test::check_values(k::lcm(ints({12, -8, 0, 0, 7}), ints({18, 12, 5, 0, -21})), {36, 24, 0, 0, 21});
  const double from[] = {1.0, 0.0, -2.5, 1e300};
  const double to[] = {2.0, -1.0, -3.0, std::numeric_limits<double>::infinity()};
  for (k::DType d : {k::DType::float32, k::DType::float64}) {
    k::Tensor x = k::cast(k::Tensor(std::vector<double>(from, from + 4), k::Shape{4}), d);
    k::Tensor y = k::cast(k::Tensor(std::vector<double>(to, to + 4), k::Shape{4}), d);
    k::Tensor r = k::nextafter(x, y);
    CHECK(r.dtype() == d);
    auto xv = x.to_vector<double>(), yv = y.to_vector<double>(), rv = r.to_vector<double>();
    for (int i = 0; i < 4; ++i) {
      if (d == k::DType::float32)
        CHECK(static_cast<float>(rv[i]) == std::nextafter(static_cast<float>(xv[i]), static_cast<float>(yv[i])));
      else
        CHECK(rv[i] == std::nextafter(xv[i], yv[i]));
    }
  }
  CHECK(k::nextafter(ints({1}), ints({2})).dtype() == k::DType::float32);
}

TEST_CASE("bitwise ops inside a trace recompute from each call's values") {
  auto f = k::function([](const k::Tensor& x, const k::Tensor& y) { return k::gcd(k::bitwise_xor(x, y), y); },
                       {.name = "bits"});
  for (int i = 0; i < 4; ++i) {
    k::Tensor x = ints({3 * i, 10 + i}), y = ints({6, 4 + 2 * i});
    kiln_test::check_values(f(x, y), k::gcd(k::bitwise_xor(x, y), y).to_vector<double>());
  }
  CHECK(f.tracing_count() == 1);
}

TEST_CASE("unravel_index, rearrange, view and the complex views") {
  auto rc = k::unravel_index(ints({5, 7, -1, 12, -13}), {3, 4});
  kiln_test::check_values(rc[0], {1, 1, 2, 2, 0});
  kiln_test::check_values(rc[1], {1, 3, 3, 3, 0});
  k::Tensor x = k::reshape(k::cast(k::arange(24), k::DType::float32), {2, 6, 2});
  k::Tensor r = k::rearrange(x, "b (h w) c -> b c h w", {{"h", 2}});
  CHECK(r.shape() == k::Shape{2, 2, 2, 3});
  CHECK(r.to_vector<float>()[1] == 2.0f);  // [0, 0, 0, 1] is x[0, 1, 0]
  CHECK(contains(message_of<k::ValueError>([&] { k::rearrange(x, "b h -> h b"); }), "names 2 axes"));
  k::Tensor bits = k::view(k::Tensor(std::vector<float>{1.0f}, k::Shape{1}), k::DType::int32);
  CHECK(bits.to_vector<int32_t>()[0] == 1065353216);
  CHECK(k::view(k::cast(ints({1, 2}), k::DType::int32), k::DType::uint8).shape() == k::Shape{8});
  CHECK(contains(message_of<k::ValueError>([&] { k::view(ints({1, 2, 3}), k::DType::int64); }), "divisor"));
  auto [re, im] = k::view_as_complex(k::Tensor({{1.0, 2.0}, {3.0, 4.0}}));
  kiln_test::check_values(re, {1, 3});
  kiln_test::check_values(im, {2, 4});
  CHECK(k::view_as_real(re, im).shape() == k::Shape{2, 2});
  CHECK(k::empty({2, 3}, k::DType::int32).shape() == k::Shape{2, 3});
}

TEST_CASE("functional and layout ops: errors name the op, what was expected and what was received") {
  k::Tensor x = k::Tensor({1.0, 2.0, 3.0}, k::DType::float64);
  auto step = [](const k::Tensor& i, const k::Tensor& s) { return s + k::cast(i, s.dtype()); };
  CHECK(contains(message_of<k::TypeError>([&] { k::fori_loop(0, k::Tensor(2.5), step, x); }),
                 "fori_loop: `upper` must be an integer or a scalar integer tensor, but received float"));
  CHECK(contains(message_of<k::ValueError>([&] {
                   k::fori_loop(0, 2, [](const k::Tensor&, const k::Tensor& s) { return k::sum(s); }, x);
                 }),
                 "fori_loop: body_fun's new state must keep"));
  CHECK(contains(message_of<k::ValueError>([&] {
                   k::jvp([](const TL& a) { return a; }, {x}, {k::Tensor({1.0, 2.0}, k::DType::float64)});
                 }),
                 "primal 0 is float64 (3,) but its tangent is float64 (2,)"));
  CHECK(contains(message_of<k::ValueError>([&] { k::vectorize([](const TL& a) { return a[0]; }, "(n)->"); }),
                 "not a valid gufunc signature: '(n)->'"));
  CHECK(contains(message_of<k::ValueError>([&] {
                   k::associative_scan([](const TL& a, const TL&) { return a; }, TL{x, k::Tensor({1.0}, k::DType::float64)});
                 }),
                 "must have the same length along axis 0"));
  CHECK(contains(message_of<k::TypeError>([&] { k::unravel_index(x, {3}); }),
                 "unravel_index: expected integer indices, but received"));
  CHECK(contains(message_of<k::ValueError>([&] { k::view_as_complex(k::reshape(x, {1, 3})); }),
                 "Last dimension of input must be size 2 (real and imaginary). Received shape: (1, 3)"));
  CHECK(contains(message_of<k::ValueError>([&] { k::rearrange(x, "a -> a b"); }), "'b' on the output side only"));
}

// keras.ops' element-wise maths (kiln/ops/elementwise_math.h): Keras's dtype
// rules, integer edge cases, special values and errors. The expected values
// are NumPy/SciPy's (and Keras 3.15's on JAX, the same to float precision);
// tests/oracle/oracle_ops_math.py compares every op with Keras at large.
// Gradients: the tape against central differences in float64 (k::check_gradients).
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "kiln/kiln.h"
#include "test_util.h"

namespace test_elementwise_math {

namespace k = kiln;
using kiln_test::check_values;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

k::Tensor f32(const std::vector<double>& v) { return k::cast(k::Tensor(v, k::Shape{static_cast<int64_t>(v.size())}), k::float32); }
k::Tensor f64(const std::vector<double>& v) { return k::Tensor(v, k::Shape{static_cast<int64_t>(v.size())}); }
k::Tensor ints(const std::vector<double>& v, k::DType dt = k::int32) { return k::cast(f64(v), dt); }
k::Tensor bools(const std::vector<double>& v) { return k::cast(f64(v), k::DType::bool_); }

/// Like check_values, but ±inf and NaN must match exactly.
void check_special(const k::Tensor& t, const std::vector<double>& expected, double eps = 1e-6) {
  auto got = t.to_vector<double>();
  REQUIRE(got.size() == expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("element ", i, ": got ", got[i], ", expected ", expected[i]);
    if (std::isnan(expected[i]))
      CHECK(std::isnan(got[i]));
    else if (std::isinf(expected[i]))
      CHECK(got[i] == expected[i]);
    else
      CHECK(got[i] == doctest::Approx(expected[i]).epsilon(eps));
  }
}

}  // namespace

TEST_CASE("elementwise_math: integer powers are exact and wrap as JAX's") {
  // keras.ops.power on the JAX backend: exact products, modulo 2^bits.
  CHECK(k::power(ints({3, 5, -2, 7}), ints({40, 13, 3, 0})).to_vector<int32_t>() ==
        std::vector<int32_t>{689956897, 1220703125, -8, 1});
  CHECK(k::power(ints({2}, k::uint8), ints({9}, k::uint8)).to_vector<uint8_t>() == std::vector<uint8_t>{0});
  CHECK(k::power(ints({3}, k::int64), ints({39}, k::int64)).item<int64_t>() == 4052555153018976267LL);
  // Negative exponents truncate the true power: only 1 and -1 keep a magnitude.
  CHECK(k::power(ints({2, 0, 1, -1, -1}), ints({-1, -1, -3, -3, -2})).to_vector<int32_t>() ==
        std::vector<int32_t>{0, 0, 1, -1, 1});
}

TEST_CASE("elementwise_math: Keras's result dtypes") {
  CHECK(k::power(bools({1, 0}), bools({1, 1})).dtype() == k::int32);
  CHECK(k::power(ints({2, 3}), ints({1, 2}, k::uint8)).dtype() == k::int32);
  CHECK(k::power(ints({2, 3}, k::uint8), bools({1, 0})).dtype() == k::uint8);
  CHECK(k::power(ints({2, 3}), f32({1, 2})).dtype() == k::float32);
  CHECK(k::power(ints({2, 3}, k::int64), ints({1, 2})).dtype() == k::int64);
  CHECK(k::power(f32({2}), f64({2})).dtype() == k::float64);
  CHECK(k::mod(bools({1, 0}), bools({1, 1})).dtype() == k::int32);
  CHECK(k::true_divide(ints({1, 2}), ints({2, 2})).dtype() == k::float32);
  CHECK(k::log2(ints({1, 2, 8})).dtype() == k::float32);
  CHECK(k::log2(f64({8})).dtype() == k::float64);
  CHECK(k::ceil(ints({3})).dtype() == k::float32);  // Keras casts integers for ceil but not for trunc
  CHECK(k::trunc(ints({3})).dtype() == k::int32);
  CHECK(k::absolute(bools({1, 0})).dtype() == k::DType::bool_);
  CHECK(k::fabs(ints({-3})).dtype() == k::float32);
  CHECK(k::imag(ints({3}, k::uint8)).dtype() == k::uint8);
  CHECK(k::i0(ints({1}, k::int64)).dtype() == k::float64);
  CHECK(k::i0(ints({1})).dtype() == k::float32);
  CHECK(k::fmax(bools({1, 0}), bools({0, 0})).dtype() == k::DType::bool_);
  CHECK(k::fmod(bools({1, 0}), bools({1, 1})).dtype() == k::int32);
  CHECK(k::nan_to_num(ints({1}, k::int64)).dtype() == k::int64);
  CHECK(k::isclose(ints({1}), f32({1})).dtype() == k::DType::bool_);
  CHECK(k::allclose(f32({1, 2}), f32({1, 2})).shape() == k::Shape{});
}

TEST_CASE("elementwise_math: integer mod and fmod take the divisor's and the dividend's sign") {
  k::Tensor a = ints({-7, 7, -7, 7, 0}), b = ints({3, 3, -3, -3, 5});
  check_values(k::mod(a, b), {2, 1, -1, -2, 0});
  check_values(k::fmod(a, b), {-1, 1, -1, 1, 0});
  check_values(k::fmod(f32({-7.5, 7.5}), f32({2, -2})), {-1.5, 1.5});
  check_values(k::mod(f32({-7.5, 7.5}), f32({2, -2})), {0.5, -0.5});
  check_values(k::mod(ints({250, 7}, k::uint8), ints({7, 250}, k::uint8)), {5, 7});
  check_values(k::mod(bools({1, 0, 1}), bools({1, 1, 1})), {0, 0, 0});
  CHECK_THROWS_AS(k::mod(ints({1, 2}), ints({0, 1})), k::ValueError);
  CHECK_THROWS_AS(k::fmod(ints({1, 2}), ints({1, 0})), k::ValueError);
  check_values(k::power(ints({-3, 2, 5}), ints({3, 0, 2})), {-27, 1, 25});
  check_values(k::negative(ints({1, 200}, k::uint8)), {255, 56});  // wraps, as NumPy
}

TEST_CASE("elementwise_math: rounding, signbit and the complex functions on reals") {
  check_special(k::ceil(f32({-2.5, 2.5, -0.5, 3.0, kInf, kNaN})), {-2, 3, 0, 3, kInf, kNaN});
  check_special(k::trunc(f32({-2.5, 2.5, -0.5, 3.0, -kInf, kNaN})), {-2, 2, 0, 3, -kInf, kNaN});
  check_values(k::signbit(f32({-0.0, 0.0, -1.0, 1.0, -kInf, kNaN})), {1, 0, 1, 0, 1, 0});
  check_values(k::signbit(ints({-2, 0, 3})), {1, 0, 0});
  check_special(k::angle(f32({-2.0, -0.0, 0.0, 3.0, kNaN})), {M_PI, M_PI, 0, 0, kNaN});
  check_values(k::imag(f32({1.5, -2})), {0, 0});
  check_values(k::isreal(f32({kNaN, 1})), {1, 1});
  check_special(k::reciprocal(ints({0, 2, -4})), {kInf, 0.5, -0.25});
  check_values(k::absolute(ints({-3, 4})), {3, 4});
}

TEST_CASE("elementwise_math: special values of the trigonometric, exponential and logarithmic ops") {
  check_special(k::arcsin(f32({1, -1, 1.5, 0.5})), {M_PI / 2, -M_PI / 2, kNaN, M_PI / 6});
  check_special(k::arccos(f32({1, -1, -2, 0.5})), {0, M_PI, kNaN, M_PI / 3}, 1e-6);
  check_special(k::arccosh(f32({1, 0.5, 2, 1e20f, kInf})), {0, kNaN, 1.3169578969248166, 46.74484904044086, kInf});
  check_special(k::arctanh(f32({1, -1, 2, 0.5})), {kInf, -kInf, kNaN, 0.5493061443340549});
  check_special(k::arcsinh(f64({-1e3, 1e-8, 1e300})), {-7.600902709541988, 1e-8, 691.4686750787736}, 1e-12);
  check_special(k::sinh(f64({1e-9, -2})), {1e-9, -3.626860407847019}, 1e-12);
  check_special(k::sinc(f32({0, 0.5, 1})), {1, 2 / M_PI, 0});
  check_special(k::hypot(f32({kInf, kNaN, 3, 0, 1e30f}), f32({kNaN, -kInf, -4, 0, 1e30f})),
                {kInf, kInf, 5, 0, 1.4142135623730951e30});
  check_special(k::log2(ints({1, 2, 1024, 0})), {0, 1, 10, -kInf});
  check_special(k::log10(f64({1000, 1e-5})), {3, -5}, 1e-12);
  check_special(k::exp2(f32({10, -1, -kInf})), {1024, 0.5, 0});
  check_special(k::cbrt(f64({-8, 27, 0})), {-2, 3, 0}, 1e-12);
  check_special(k::logaddexp(f32({-kInf, kInf, 1000, -kInf}), f32({-kInf, kInf, 1000, 1})),
                {-kInf, kInf, 1000 + std::log(2.0), 1});
  check_special(k::logaddexp2(f64({3, -kInf}), f64({3, 5})), {4, 5}, 1e-12);
  check_special(k::erfc(f64({0, 1, -kInf})), {1, 0.15729920705028513, 2}, 1e-12);
  check_special(k::ldexp(f32({1.5, 3, kInf}), ints({2, -1, 1})), {6, 1.5, kInf});
}

TEST_CASE("elementwise_math: erfinv and i0 against SciPy") {
  check_special(k::erfinv(f32({0.5, -0.9, 0, 1, -1, 1.5})), {0.4769362762044699, -1.1630871536766743, 0, kInf, -kInf, kNaN},
                2e-6);
  check_special(k::erfinv(f64({0.5, 0.9, 0.999999, -0.3})),
                {0.4769362762044699, 1.1630871536766743, 3.458910737275499, -0.2724627147267544}, 1e-11);
  check_special(k::i0(f64({0, 1, -5, 14.9, 15.1, 20, 50})),
                {1, 1.2660658777520082, 27.239871823604442, 308375.5786874392, 374103.411190409,
                 43558282.559553534, 2.9325537838493355e20},
                1e-11);
  check_special(k::i0(f32({100, kNaN})), {kInf, kNaN});
}

TEST_CASE("elementwise_math: predicates, NaN-aware extrema and safe division") {
  check_values(k::isinf(f32({kInf, -kInf, kNaN, 1})), {1, 1, 0, 0});
  check_values(k::isposinf(f32({kInf, -kInf})), {1, 0});
  check_values(k::isneginf(f32({kInf, -kInf})), {0, 1});
  check_values(k::isinf(ints({1, 2})), {0, 0});
  k::Tensor a = f32({kInf, kInf, kNaN, 1.0, 1.0, 0.0}), b = f32({kInf, -kInf, kNaN, 1.000009, 1.00002, 1e-8});
  check_values(k::isclose(a, b), {1, 0, 0, 1, 0, 1});
  check_values(k::isclose(a, b, 1e-5, 1e-8, true), {1, 0, 1, 1, 0, 1});
  check_values(k::isclose(a, b, 1e-4), {1, 0, 0, 1, 1, 1});
  check_values(k::allclose(f32({1, 2}), f32({1, 2.00001})), {1});
  check_values(k::allclose(f32({1, 2}), f32({1, 2.1})), {0});
  check_special(k::fmax(f32({kNaN, 1, kNaN}), f32({2, kNaN, kNaN})), {2, 1, kNaN});
  check_special(k::fmin(f32({kNaN, 1, -3}), f32({2, kNaN, 4})), {2, 1, -3});
  check_values(k::heaviside(f32({-1.5, 0, 2}), f32({0.5})), {0, 0.5, 1});
  check_special(k::heaviside(f32({kNaN}), f32({0.5})), {kNaN});  // jnp.heaviside passes NaN through
  check_values(k::logical_xor(ints({0, 1, 2, 0}), f32({0, 0, 1, 3})), {0, 1, 0, 1});
  auto big = static_cast<double>(std::numeric_limits<float>::max());
  check_special(k::nan_to_num(f32({kNaN, kInf, -kInf, 2})), {0, big, -big, 2});
  check_special(k::nan_to_num(f32({kNaN, kInf, -kInf, 2}), 1.5, 100.0, -100.0), {1.5, 100, -100, 2});
  check_values(k::divide_no_nan(f32({1, 0, -3}), f32({0, 0, 2})), {0, 0, -1.5});
  check_values(k::divide_no_nan(ints({3, 1}), ints({2, 0})), {1.5, 0});
}

TEST_CASE("elementwise_math: fmax and fmin send a tie's gradient to the second operand, as jnp does") {
  k::Tensor a = f64({2.0, 1.0}), b = f64({2.0, kNaN});
  for (auto* op : {&k::fmax, &k::fmin}) {
    k::GradientTape tape;
    tape.watch(a);
    tape.watch(b);
    k::Tensor y = (*op)(a, b);
    auto g = tape.gradient(y, std::vector<k::Source>{a, b}, k::UnconnectedGradients::Zero);
    check_values(*g[0], {0, 1});
    check_values(*g[1], {1, 0});
  }
}

TEST_CASE("elementwise_math: errors name the op and what it received") {
  CHECK_THROWS_WITH_AS(k::negative(bools({1})), doctest::Contains("negative"), k::TypeError);
  CHECK_THROWS_WITH_AS(k::ldexp(f32({1}), f32({2})), doctest::Contains("ldexp: the exponent must be an integer"),
                       k::TypeError);
  CHECK_THROWS_AS(k::ldexp(f32({1}), bools({1})), k::TypeError);
  CHECK_THROWS_WITH_AS(k::hypot(k::zeros({2, 3}), k::zeros({4})), doctest::Contains("(2, 3)"), k::ShapeError);
  CHECK_THROWS_AS(k::logaddexp(k::zeros({2}), k::zeros({3})), k::ShapeError);
  CHECK_THROWS_AS(k::fmod(k::zeros({2}), k::zeros({3})), k::ShapeError);
  CHECK_THROWS_AS(k::isclose(k::zeros({2}), k::zeros({3})), k::ShapeError);
  CHECK_THROWS_AS(k::tan(k::Tensor()), k::ValueError);
}

TEST_CASE("elementwise_math: gradients against central differences") {
  k::Tensor inside = f64({-0.7, 0.2, 0.55, -0.1});
  k::Tensor above_one = f64({1.3, 2.0, 4.5});
  k::Tensor any = f64({-2.1, -0.3, 0.4, 1.7});
  k::Tensor other = f64({0.9, -1.2, 2.5, -0.6});
  kiln_test::check_gradients_ok("tan", [](const auto& x) { return k::tan(x[0]); }, {inside});
  kiln_test::check_gradients_ok("arcsin", [](const auto& x) { return k::arcsin(x[0]); }, {inside});
  kiln_test::check_gradients_ok("arccos", [](const auto& x) { return k::arccos(x[0]); }, {inside});
  kiln_test::check_gradients_ok("arctanh", [](const auto& x) { return k::arctanh(x[0]); }, {inside});
  kiln_test::check_gradients_ok("arccosh", [](const auto& x) { return k::arccosh(x[0]); }, {above_one});
  kiln_test::check_gradients_ok("arcsinh", [](const auto& x) { return k::arcsinh(x[0]); }, {any});
  kiln_test::check_gradients_ok("sinh", [](const auto& x) { return k::sinh(x[0]); }, {any});
  kiln_test::check_gradients_ok("sinc", [](const auto& x) { return k::sinc(x[0]); }, {any});
  kiln_test::check_gradients_ok("cbrt", [](const auto& x) { return k::cbrt(x[0]); }, {any});
  kiln_test::check_gradients_ok("exp2", [](const auto& x) { return k::exp2(x[0]); }, {any});
  kiln_test::check_gradients_ok("erfinv", [](const auto& x) { return k::erfinv(x[0]); }, {inside});
  // The series (|x| <= 15) and the asymptotic expansion apart: i0 grows as e^|x|, and one large value would
  // swamp the central differences of the small ones.
  kiln_test::check_gradients_ok("i0", [](const auto& x) { return k::i0(x[0]); }, {f64({-3.0, 0.5, 6.0})});
  kiln_test::check_gradients_ok("i0 (asymptotic)", [](const auto& x) { return k::i0(x[0]); }, {f64({-16.5})});
  kiln_test::check_gradients_ok("hypot", [](const auto& x) { return k::hypot(x[0], x[1]); }, {any, other});
  kiln_test::check_gradients_ok("logaddexp", [](const auto& x) { return k::logaddexp(x[0], x[1]); }, {any, other});
  kiln_test::check_gradients_ok("logaddexp2", [](const auto& x) { return k::logaddexp2(x[0], x[1]); }, {any, other});
  kiln_test::check_gradients_ok("fmod", [](const auto& x) { return k::fmod(x[0], x[1]); }, {f64({-3.3, 1.1, 5.2, -0.4}), other});
  kiln_test::check_gradients_ok("divide_no_nan", [](const auto& x) { return k::divide_no_nan(x[0], x[1]); }, {any, other});
  kiln_test::check_gradients_ok("power", [](const auto& x) { return k::power(x[0], x[1]); }, {above_one, f64({0.5, -1.5, 2.0})});
}

}  // namespace test_elementwise_math

// The CPU's vectorized float32 exp, expm1, tanh, sigmoid and erf
// (backend/cpu/vector_math.h) against double-precision libm, in ulps, over
// the whole float range and densely near zero; the threaded, vectorized
// softmax, log-softmax and sparse cross-entropy against double-precision
// rows; and where() and scalar-broadcast binary ops on the flat threaded path
// against the same ops on small (serial) pieces.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "kiln/kiln.h"

namespace test_vector_math {

namespace k = kiln;

namespace {

// Distance in units in the last place between a float and the float nearest the exact value.
int64_t ulps(float got, double exact) {
  const float want = static_cast<float>(exact);
  if (std::isnan(want)) return std::isnan(got) ? 0 : 1 << 30;
  if (std::isinf(want) || std::isinf(got)) return got == want ? 0 : 1 << 30;
  int32_t a, b;
  std::memcpy(&a, &got, 4);
  std::memcpy(&b, &want, 4);
  if (a < 0) a = std::numeric_limits<int32_t>::min() - a;
  if (b < 0) b = std::numeric_limits<int32_t>::min() - b;
  return a > b ? int64_t(a) - b : int64_t(b) - a;
}

// Over 200,000 values: more than one thread's share, and a length that is not a multiple of the vector width.
std::vector<float> sweep() {
  std::vector<float> xs;
  for (double x = -105; x < 95; x += 0.00137) xs.push_back(static_cast<float>(x));
  for (double x = -1e-3; x < 1e-3; x += 3.1e-8) xs.push_back(static_cast<float>(x));
  for (float v : {0.f, -0.f, 1e-30f, -1e-30f, 88.72f, 88.73f, -87.33f, 3.92f, -3.92f}) xs.push_back(v);
  xs.push_back(0.5f);
  return xs;
}

void check_ulps(const std::string& name, const std::function<k::Tensor(const k::Tensor&)>& op,
                double (*exact)(double), int64_t max_ulps) {
  const std::vector<float> xs = sweep();
  const auto n = static_cast<int64_t>(xs.size());
  std::vector<float> got = op(k::Tensor(xs, k::Shape{n})).to_vector<float>();
  REQUIRE(got.size() == xs.size());
  int64_t worst = 0;
  float worst_x = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const double want = exact(xs[i]);
    // Results in the denormal range are flushed to zero by the CPU kernels.
    if (std::abs(want) < 1.2e-38 && std::abs(got[i]) < 1.2e-38f) continue;
    const int64_t d = ulps(got[i], want);
    if (d > worst) worst = d, worst_x = xs[i];
  }
  INFO(name, ": worst ", worst, " ulp at x = ", worst_x);
  CHECK(worst <= max_ulps);
}

double sigmoid_exact(double x) { return 1 / (1 + std::exp(-x)); }

}  // namespace

TEST_CASE("vector_math: exp, expm1, tanh, sigmoid and erf within 2 ulp of double precision") {
  check_ulps("exp", [](const k::Tensor& x) { return k::exp(x); }, [](double x) { return std::exp(x); }, 2);
  check_ulps("expm1", [](const k::Tensor& x) { return k::expm1(x); }, [](double x) { return std::expm1(x); }, 2);
  check_ulps("tanh", [](const k::Tensor& x) { return k::tanh(x); }, [](double x) { return std::tanh(x); }, 2);
  check_ulps("sigmoid", [](const k::Tensor& x) { return k::sigmoid(x); }, sigmoid_exact, 2);
  check_ulps("erf", [](const k::Tensor& x) { return k::erf(x); }, [](double x) { return std::erf(x); }, 2);
}

TEST_CASE("vector_math: special values as libm gives them") {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  k::Tensor x(std::vector<float>{nan, inf, -inf, -0.f, 89.f, -200.f}, k::Shape{6});
  auto e = k::exp(x).to_vector<float>();
  CHECK(std::isnan(e[0]));
  CHECK(e[1] == inf);
  CHECK(e[2] == 0.f);
  CHECK(e[3] == 1.f);
  CHECK(e[4] == inf);  // past FLT_MAX
  CHECK(e[5] == 0.f);
  auto m = k::expm1(x).to_vector<float>();
  CHECK(std::isnan(m[0]));
  CHECK(m[1] == inf);
  CHECK(m[2] == -1.f);
  CHECK((m[3] == 0.f && std::signbit(m[3])));
  auto t = k::tanh(x).to_vector<float>();
  CHECK(std::isnan(t[0]));
  CHECK(t[1] == 1.f);
  CHECK(t[2] == -1.f);
  CHECK((t[3] == 0.f && std::signbit(t[3])));
  auto s = k::sigmoid(x).to_vector<float>();
  CHECK(std::isnan(s[0]));
  CHECK(s[1] == 1.f);
  CHECK(s[2] == 0.f);
  CHECK(s[5] == 0.f);
  auto f = k::erf(x).to_vector<float>();
  CHECK(std::isnan(f[0]));
  CHECK(f[1] == 1.f);
  CHECK(f[2] == -1.f);
  CHECK((f[3] == 0.f && std::signbit(f[3])));
}

TEST_CASE("vector_math: softmax and log_softmax rows against double precision, on every axis") {
  // 300 rows of 97 (softmax over the last axis, split over threads), and the same data over axis 0.
  const int64_t rows = 300, cols = 97;
  std::vector<float> v(static_cast<std::size_t>(rows * cols));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(std::sin(0.37 * double(i)) * 30.0);
  k::Tensor x(v, k::Shape{rows, cols});
  for (int axis : {1, 0}) {
    auto sm = k::softmax(x, axis).to_vector<float>();
    auto lsm = k::log_softmax(x, axis).to_vector<float>();
    const int64_t n = axis == 1 ? cols : rows, groups = axis == 1 ? rows : cols;
    double worst = 0, worst_log = 0;
    for (int64_t g = 0; g < groups; ++g) {
      auto at = [&](int64_t i) { return axis == 1 ? g * cols + i : i * cols + g; };
      double m = -1e300, s = 0;
      for (int64_t i = 0; i < n; ++i) m = std::max(m, double(v[at(i)]));
      for (int64_t i = 0; i < n; ++i) s += std::exp(double(v[at(i)]) - m);
      for (int64_t i = 0; i < n; ++i) {
        const double p = std::exp(double(v[at(i)]) - m) / s, lp = double(v[at(i)]) - m - std::log(s);
        worst = std::max(worst, std::abs(sm[at(i)] - p) / std::max(p, 1e-30));
        worst_log = std::max(worst_log, std::abs(lsm[at(i)] - lp) / std::max(std::abs(lp), 1.0));
      }
    }
    INFO("axis ", axis, ": softmax relative error ", worst, ", log_softmax ", worst_log);
    CHECK(worst < 2e-6);
    CHECK(worst_log < 1e-6);
  }
}

TEST_CASE("vector_math: sparse cross-entropy keeps a finite loss when the label's probability underflows") {
  k::Tensor logits(std::vector<float>{0.f, -200.f, 5.f, 1.f, 2.f, 3.f}, k::Shape{2, 3});
  k::Tensor labels(std::vector<int64_t>{1, 0}, k::Shape{2});
  auto loss = k::sparse_softmax_cross_entropy_with_logits(labels, logits).to_vector<double>();
  const double lse0 = std::log(std::exp(0.0) + std::exp(-200.0) + std::exp(5.0));
  const double lse1 = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0));
  CHECK(loss[0] == doctest::Approx(lse0 + 200.0).epsilon(1e-6));
  CHECK(loss[1] == doctest::Approx(lse1 - 1.0).epsilon(1e-6));
}

TEST_CASE("vector_math: where and scalar-broadcast binary ops on the threaded path equal the serial result") {
  // 100,003 elements take the flat threaded loops; each 1,000-element slice is below the grain and runs serially.
  const int64_t n = 100003;
  std::vector<float> v(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(std::cos(0.01 * double(i)) * (i % 7 - 3));
  k::Tensor x(v, k::Shape{n});
  k::Tensor big = k::where(k::greater(x, k::Tensor(0.f)), x, k::multiply(x, k::Tensor(0.2f)));
  auto got = big.to_vector<float>();
  for (int64_t i = 0; i < n; ++i) {
    const float want = v[i] > 0 ? v[i] : v[i] * 0.2f;
    if (got[i] != want) {
      INFO("element ", i, ": got ", got[i], ", want ", want);
      CHECK(got[i] == want);
      break;
    }
  }
  auto sub = k::subtract(k::Tensor(1.5f), x).to_vector<float>();
  bool all = true;
  for (int64_t i = 0; i < n; ++i) all = all && sub[i] == 1.5f - v[i];
  CHECK(all);
}

}  // namespace test_vector_math

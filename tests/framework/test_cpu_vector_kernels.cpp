// The CPU's vectorized float32 exp, expm1, tanh, sigmoid and erf
// (backend/cpu/vector_math.h) against double-precision libm, in ulps, over
// the whole float range and densely near zero; the threaded, vectorized
// softmax, log-softmax and sparse cross-entropy against double-precision
// rows; where() and scalar-broadcast binary ops on the flat threaded path
// against the scalar result; and the threaded, lane-split reductions over
// trailing, leading and middle axes against double-precision sums.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "kiln/kiln.h"

namespace test_cpu_vector_kernels {

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

TEST_CASE("cpu_vector_kernels: exp, expm1, tanh, sigmoid and erf within 2 ulp of double precision") {
  check_ulps("exp", [](const k::Tensor& x) { return k::exp(x); }, [](double x) { return std::exp(x); }, 2);
  check_ulps("expm1", [](const k::Tensor& x) { return k::expm1(x); }, [](double x) { return std::expm1(x); }, 2);
  check_ulps("tanh", [](const k::Tensor& x) { return k::tanh(x); }, [](double x) { return std::tanh(x); }, 2);
  check_ulps("sigmoid", [](const k::Tensor& x) { return k::sigmoid(x); }, sigmoid_exact, 2);
  check_ulps("erf", [](const k::Tensor& x) { return k::erf(x); }, [](double x) { return std::erf(x); }, 2);
}

TEST_CASE("cpu_vector_kernels: special values as libm gives them") {
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

TEST_CASE("cpu_vector_kernels: softmax and log_softmax rows against double precision, on every axis") {
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
    // x - max rounds to float before exp: down at -50, that is 2e-6 of the probability by itself.
    CHECK(worst < 1e-5);
    CHECK(worst_log < 2e-6);
  }
}

TEST_CASE("cpu_vector_kernels: sparse cross-entropy keeps a finite loss when the label's probability underflows") {
  k::Tensor logits(std::vector<float>{0.f, -200.f, 5.f, 1.f, 2.f, 3.f}, k::Shape{2, 3});
  k::Tensor labels(std::vector<int64_t>{1, 0}, k::Shape{2});
  auto loss = k::sparse_softmax_cross_entropy_with_logits(labels, logits).to_vector<double>();
  const double lse0 = std::log(std::exp(0.0) + std::exp(-200.0) + std::exp(5.0));
  const double lse1 = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0));
  CHECK(loss[0] == doctest::Approx(lse0 + 200.0).epsilon(1e-6));
  CHECK(loss[1] == doctest::Approx(lse1 - 1.0).epsilon(1e-6));
}

TEST_CASE("cpu_vector_kernels: where and scalar-broadcast binary ops on the threaded path equal the serial result") {
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
  // General broadcasts (a column and a row against a matrix) split along the first axis.
  const int64_t r = 401, c = 300;
  std::vector<float> m(static_cast<std::size_t>(r * c)), col(r), row(c);
  for (int64_t i = 0; i < r * c; ++i) m[i] = static_cast<float>(i % 97) * 0.5f;
  for (int64_t i = 0; i < r; ++i) col[i] = static_cast<float>(i) * 0.25f;
  for (int64_t j = 0; j < c; ++j) row[j] = static_cast<float>(j) * 2.f;
  auto d1 = k::subtract(k::Tensor(m, k::Shape{r, c}), k::Tensor(col, k::Shape{r, 1})).to_vector<float>();
  auto d2 = k::multiply(k::Tensor(row, k::Shape{1, c}), k::Tensor(m, k::Shape{r, c})).to_vector<float>();
  bool ok1 = true, ok2 = true;
  for (int64_t i = 0; i < r; ++i)
    for (int64_t j = 0; j < c; ++j) {
      ok1 = ok1 && d1[i * c + j] == m[i * c + j] - col[i];
      ok2 = ok2 && d2[i * c + j] == row[j] * m[i * c + j];
    }
  CHECK(ok1);
  CHECK(ok2);
  // A transpose is a strided copy, split over the threads along the output's first axis.
  auto t = k::transpose(k::Tensor(m, k::Shape{r, c}), {1, 0}).to_vector<float>();
  bool ok3 = true;
  for (int64_t i = 0; i < r; ++i)
    for (int64_t j = 0; j < c; ++j) ok3 = ok3 && t[j * r + i] == m[i * c + j];
  CHECK(ok3);
}

TEST_CASE("cpu_vector_kernels: sum, max and min over trailing, leading and middle axes") {
  const int64_t a = 37, b = 29, c = 211;
  std::vector<float> v(static_cast<std::size_t>(a * b * c));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(std::sin(0.013 * double(i)) + 0.25 * double(i % 5));
  k::Tensor x(v, k::Shape{a, b, c});
  auto at = [&](int64_t i, int64_t j, int64_t l) { return double(v[static_cast<std::size_t>((i * b + j) * c + l)]); };
  for (std::vector<int> axes : {std::vector<int>{2}, {1, 2}, {0}, {0, 1}, {1}, {0, 1, 2}, {0, 2}}) {
    auto reduced = [&](int64_t i, int64_t j, int64_t l) {
      bool r[3] = {false, false, false};
      for (int ax : axes) r[ax] = true;
      double s = 0, mx = -1e300, mn = 1e300;
      for (int64_t i2 = 0; i2 < a; ++i2)
        for (int64_t j2 = 0; j2 < b; ++j2)
          for (int64_t l2 = 0; l2 < c; ++l2) {
            if ((!r[0] && i2 != i) || (!r[1] && j2 != j) || (!r[2] && l2 != l)) continue;
            const double e = at(i2, j2, l2);
            s += e, mx = std::max(mx, e), mn = std::min(mn, e);
          }
      return std::array<double, 3>{s, mx, mn};
    };
    auto sum = k::sum(x, axes, true), mx = k::max(x, axes, true), mn = k::min(x, axes, true);
    auto sv = sum.to_vector<double>(), mv = mx.to_vector<double>(), nv = mn.to_vector<double>();
    const auto& os = sum.shape().dims();
    int64_t idx = 0, checked = 0;
    for (int64_t i = 0; i < os[0]; ++i)
      for (int64_t j = 0; j < os[1]; ++j)
        for (int64_t l = 0; l < os[2]; ++l, ++idx) {
          if (idx % 17 != 0 && idx > 3) continue;  // a sample of outputs keeps the reference cheap
          const auto want = reduced(i, j, l);
          INFO("axes size ", axes.size(), " first ", axes[0], ", output ", idx);
          CHECK(sv[idx] == doctest::Approx(want[0]).epsilon(1e-5));
          CHECK(mv[idx] == static_cast<float>(want[1]));
          CHECK(nv[idx] == static_cast<float>(want[2]));
          ++checked;
        }
    CHECK(checked > 0);
  }
  // Axes 1 and 3 of four (GroupNormalization's statistics): split along the kept first axis.
  const int64_t g0 = 6, g1 = 5, g2 = 4, g3 = 700;
  std::vector<float> gv(static_cast<std::size_t>(g0 * g1 * g2 * g3));
  for (std::size_t i = 0; i < gv.size(); ++i) gv[i] = static_cast<float>((i * 7919) % 1000) * 1e-3f;
  auto gs = k::sum(k::Tensor(gv, k::Shape{g0, g1, g2, g3}), std::vector<int>{1, 3}).to_vector<double>();
  for (int64_t i = 0; i < g0; ++i)
    for (int64_t l = 0; l < g2; ++l) {
      double want = 0;
      for (int64_t j = 0; j < g1; ++j)
        for (int64_t m = 0; m < g3; ++m) want += gv[static_cast<std::size_t>(((i * g1 + j) * g2 + l) * g3 + m)];
      CHECK(gs[static_cast<std::size_t>(i * g2 + l)] == doctest::Approx(want).epsilon(1e-5));
    }
  // NaN wins a max or min wherever it sits in the row.
  std::vector<float> w(1000, 1.f);
  w[613] = std::numeric_limits<float>::quiet_NaN();
  k::Tensor y(w, k::Shape{2, 500});
  auto ym = k::max(y, std::vector<int>{1}, true).to_vector<float>();
  CHECK(ym[0] == 1.f);
  CHECK(std::isnan(ym[1]));
}

TEST_CASE("cpu_vector_kernels: transposes of the two inner axes, tiled, for every size and dtype") {
  for (const std::vector<int64_t>& dims : {std::vector<int64_t>{17, 33}, {3, 40, 16}, {2, 3, 31, 50}, {16, 16}, {5, 15, 70}}) {
    const int r = static_cast<int>(dims.size());
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    std::vector<double> v(static_cast<std::size_t>(n));
    for (int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = static_cast<double>((i * 37) % 1001);
    std::vector<int> perm(static_cast<std::size_t>(r));
    for (int i = 0; i < r; ++i) perm[static_cast<std::size_t>(i)] = i;
    std::swap(perm[static_cast<std::size_t>(r - 1)], perm[static_cast<std::size_t>(r - 2)]);
    for (k::DType dt : {k::float32, k::int64, k::float64}) {
      k::Tensor x = k::cast(k::Tensor(v, k::Shape(dims)), dt);
      auto got = k::transpose(x, perm).to_vector<double>();
      // Reference: out[..., i, j] = x[..., j, i].
      const int64_t rows = dims[static_cast<std::size_t>(r - 1)], cols = dims[static_cast<std::size_t>(r - 2)];
      bool same = got.size() == v.size();
      for (int64_t o = 0; same && o < n / (rows * cols); ++o)
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t j = 0; j < cols; ++j)
            same = same && got[static_cast<std::size_t>(o * rows * cols + i * cols + j)] ==
                               v[static_cast<std::size_t>(o * rows * cols + j * rows + i)];
      INFO("shape ", k::Shape(dims).to_string(), ", dtype ", k::dtype_name(dt));
      CHECK(same);
    }
  }
}

}  // namespace test_cpu_vector_kernels

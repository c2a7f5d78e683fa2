// Forward values of the bigger kernels against direct loops written here:
// conv2d, pooling, batched matmul, multi-axis reductions, softmax on every
// axis, transposes and gathers. (Gradient checks only compare the tape with
// differences of the same forward, so they cannot catch a wrong forward.)
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/ops/ops.h"
#include "kiln/core/tensor.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_reference {

namespace k = kiln;
using T = k::Tensor;

namespace {
void check_close(const T& t, const std::vector<double>& expected, double tol = 1e-9) {
  auto got = t.to_vector<double>();
  REQUIRE(got.size() == expected.size());
  double worst = 0;
  std::size_t at = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    double e = std::abs(got[i] - expected[i]) / (1 + std::abs(expected[i]));
    if (e > worst) worst = e, at = i;
  }
  INFO("worst element ", at, ": got ", got[at], " expected ", expected[at]);
  CHECK(worst <= tol);
}

T rnd(const k::Shape& s, uint64_t seed) { return k::random::normal(s, 0, 1, k::float64, seed); }

int64_t same_pad_before(int64_t in, int64_t k, int s, int d, int64_t& out) {
  out = (in + s - 1) / s;
  int64_t ek = (k - 1) * d + 1;
  int64_t total = std::max<int64_t>((out - 1) * s + ek - in, 0);
  return total / 2;
}

std::vector<double> conv_ref(const T& xt, const T& wt, std::array<int, 2> st, std::array<int, 2> dil, bool same,
                             k::Shape& out_shape) {
  auto x = xt.to_vector<double>(), w = wt.to_vector<double>();
  const int64_t N = xt.shape()[0], H = xt.shape()[1], W = xt.shape()[2], C = xt.shape()[3];
  const int64_t KH = wt.shape()[0], KW = wt.shape()[1], O = wt.shape()[3];
  int64_t OH, OW, pt = 0, pl = 0;
  if (same) {
    pt = same_pad_before(H, KH, st[0], dil[0], OH);
    pl = same_pad_before(W, KW, st[1], dil[1], OW);
  } else {
    OH = (H - ((KH - 1) * dil[0] + 1)) / st[0] + 1;
    OW = (W - ((KW - 1) * dil[1] + 1)) / st[1] + 1;
  }
  out_shape = k::Shape{N, OH, OW, O};
  std::vector<double> y(static_cast<std::size_t>(N * OH * OW * O), 0.0);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t i = 0; i < OH; ++i)
      for (int64_t j = 0; j < OW; ++j)
        for (int64_t o = 0; o < O; ++o) {
          double acc = 0;
          for (int64_t a = 0; a < KH; ++a)
            for (int64_t b = 0; b < KW; ++b) {
              int64_t r = i * st[0] + a * dil[0] - pt, c = j * st[1] + b * dil[1] - pl;
              if (r < 0 || r >= H || c < 0 || c >= W) continue;
              for (int64_t ci = 0; ci < C; ++ci)
                acc += x[((n * H + r) * W + c) * C + ci] * w[((a * KW + b) * C + ci) * O + o];
            }
          y[((n * OH + i) * OW + j) * O + o] = acc;
        }
  return y;
}

std::vector<double> pool_ref(const T& xt, std::array<int, 2> ps, std::array<int, 2> st, bool same, bool is_max,
                             k::Shape& out_shape) {
  auto x = xt.to_vector<double>();
  const int64_t N = xt.shape()[0], H = xt.shape()[1], W = xt.shape()[2], C = xt.shape()[3];
  int64_t OH, OW, pt = 0, pl = 0;
  if (same) {
    pt = same_pad_before(H, ps[0], st[0], 1, OH);
    pl = same_pad_before(W, ps[1], st[1], 1, OW);
  } else {
    OH = (H - ps[0]) / st[0] + 1;
    OW = (W - ps[1]) / st[1] + 1;
  }
  out_shape = k::Shape{N, OH, OW, C};
  std::vector<double> y;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t i = 0; i < OH; ++i)
      for (int64_t j = 0; j < OW; ++j)
        for (int64_t c = 0; c < C; ++c) {
          double m = -std::numeric_limits<double>::infinity(), s = 0;
          int cnt = 0;
          for (int a = 0; a < ps[0]; ++a)
            for (int b = 0; b < ps[1]; ++b) {
              int64_t r = i * st[0] + a - pt, q = j * st[1] + b - pl;
              if (r < 0 || r >= H || q < 0 || q >= W) continue;
              double v = x[((n * H + r) * W + q) * C + c];
              m = std::max(m, v);
              s += v;
              ++cnt;
            }
          y.push_back(is_max ? m : s / cnt);
        }
  return y;
}
}  // namespace

TEST_CASE("reference: conv2d against a direct loop") {
  struct Case {
    k::Shape x, w;
    std::array<int, 2> strides, dilation;
    bool same;
  };
  const std::vector<Case> cases = {
      {{2, 5, 5, 3}, {3, 3, 3, 4}, {1, 1}, {1, 1}, false}, {{2, 5, 5, 3}, {3, 3, 3, 4}, {1, 1}, {1, 1}, true},
      {{1, 7, 6, 2}, {3, 2, 2, 3}, {2, 2}, {1, 1}, false}, {{1, 7, 6, 2}, {3, 2, 2, 3}, {2, 2}, {1, 1}, true},
      {{1, 8, 8, 1}, {3, 3, 1, 2}, {1, 1}, {2, 2}, false}, {{1, 8, 7, 1}, {3, 3, 1, 2}, {1, 1}, {2, 2}, true},
      {{3, 6, 9, 2}, {2, 4, 2, 2}, {3, 2}, {1, 2}, true},  {{1, 4, 4, 2}, {4, 4, 2, 1}, {1, 1}, {1, 1}, true},
      {{1, 5, 5, 1}, {1, 1, 1, 3}, {2, 3}, {1, 1}, true},
  };
  uint64_t seed = 50;
  for (const auto& c : cases) {
    T x = rnd(c.x, seed++), w = rnd(c.w, seed++);
    k::Shape expected_shape;
    auto expected = conv_ref(x, w, c.strides, c.dilation, c.same, expected_shape);
    T y = k::conv2d(x, w, {.strides = c.strides, .padding = c.same ? "same" : "valid", .dilation = c.dilation});
    INFO("x ", c.x.to_string(), " w ", c.w.to_string(), " same ", c.same);
    CHECK(y.shape() == expected_shape);
    check_close(y, expected);
    // float32 agrees to float32 precision.
    T y32 = k::conv2d(k::cast(x, k::float32), k::cast(w, k::float32),
                      {.strides = c.strides, .padding = c.same ? "same" : "valid", .dilation = c.dilation});
    check_close(y32, expected, 1e-5);
  }
}

TEST_CASE("reference: pooling against a direct loop") {
  struct Case {
    k::Shape x;
    std::array<int, 2> pool, strides;
    bool same;
  };
  const std::vector<Case> cases = {
      {{2, 4, 6, 3}, {2, 2}, {2, 2}, false}, {{1, 5, 5, 2}, {2, 2}, {2, 2}, true}, {{1, 7, 7, 1}, {3, 3}, {2, 2}, false},
      {{1, 7, 6, 2}, {3, 3}, {2, 2}, true},  {{2, 5, 4, 1}, {3, 2}, {1, 1}, true}, {{1, 6, 6, 1}, {3, 3}, {3, 1}, false},
  };
  uint64_t seed = 80;
  for (const auto& c : cases) {
    T x = rnd(c.x, seed++);
    for (bool is_max : {true, false}) {
      k::Shape es;
      auto expected = pool_ref(x, c.pool, c.strides, c.same, is_max, es);
      k::Pool2DOptions o{.pool_size = c.pool, .strides = c.strides, .padding = c.same ? "same" : "valid"};
      T y = is_max ? k::max_pool2d(x, o) : k::avg_pool2d(x, o);
      INFO("x ", c.x.to_string(), " max ", is_max, " same ", c.same);
      CHECK(y.shape() == es);
      check_close(y, expected);
    }
  }
}

TEST_CASE("reference: batched matmul with broadcast batch axes") {
  // a (2, 1, 3, 4) x b (3, 4, 5) -> (2, 3, 3, 5)
  T a = rnd({2, 1, 3, 4}, 1), b = rnd({3, 4, 5}, 2);
  auto av = a.to_vector<double>(), bv = b.to_vector<double>();
  std::vector<double> expected;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int m = 0; m < 3; ++m)
        for (int n = 0; n < 5; ++n) {
          double s = 0;
          for (int q = 0; q < 4; ++q) s += av[(i * 3 + m) * 4 + q] * bv[(j * 4 + q) * 5 + n];
          expected.push_back(s);
        }
  T y = k::matmul(a, b);
  CHECK(y.shape() == k::Shape{2, 3, 3, 5});
  check_close(y, expected);
  // The same through transposed storage.
  check_close(k::matmul(k::transpose(a, {0, 1, 3, 2}), k::transpose(b, {0, 2, 1}), true, true), expected);
  check_close(k::matmul(a, k::transpose(b, {0, 2, 1}), false, true), expected);
  // float32 path
  check_close(k::matmul(k::cast(a, k::float32), k::cast(b, k::float32)), expected, 1e-5);
}

TEST_CASE("reference: reductions over every axis set of a 3-D tensor") {
  T x = rnd({2, 3, 4}, 9);
  auto v = x.to_vector<double>();
  const std::vector<std::vector<int>> sets = {{0}, {1}, {2}, {0, 1}, {0, 2}, {1, 2}, {0, 1, 2}, {-1, 0}};
  const int64_t d[3] = {2, 3, 4};
  for (const auto& axes_in : sets) {
    bool red[3] = {false, false, false};
    for (int a : axes_in) red[a < 0 ? a + 3 : a] = true;
    // Output dims and accumulation by brute force.
    int64_t od[3];
    for (int i = 0; i < 3; ++i) od[i] = red[i] ? 1 : d[i];
    const std::size_t on = static_cast<std::size_t>(od[0] * od[1] * od[2]);
    std::vector<double> s(on, 0), mx(on, -1e300), mn(on, 1e300), pr(on, 1), cnt(on, 0);
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 3; ++j)
        for (int64_t l = 0; l < 4; ++l) {
          int64_t oi = red[0] ? 0 : i, oj = red[1] ? 0 : j, ol = red[2] ? 0 : l;
          std::size_t o = static_cast<std::size_t>((oi * od[1] + oj) * od[2] + ol);
          double val = v[(i * 3 + j) * 4 + l];
          s[o] += val;
          mx[o] = std::max(mx[o], val);
          mn[o] = std::min(mn[o], val);
          pr[o] *= val;
          cnt[o] += 1;
        }
    std::vector<double> me(on), va(on, 0), lse(on, 0);
    for (std::size_t o = 0; o < on; ++o) me[o] = s[o] / cnt[o];
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 3; ++j)
        for (int64_t l = 0; l < 4; ++l) {
          int64_t oi = red[0] ? 0 : i, oj = red[1] ? 0 : j, ol = red[2] ? 0 : l;
          std::size_t o = static_cast<std::size_t>((oi * od[1] + oj) * od[2] + ol);
          double val = v[(i * 3 + j) * 4 + l];
          va[o] += (val - me[o]) * (val - me[o]) / cnt[o];
          lse[o] += std::exp(val);
        }
    std::vector<double> sd(on);
    for (std::size_t o = 0; o < on; ++o) sd[o] = std::sqrt(va[o]), lse[o] = std::log(lse[o]);
    k::Axes ax(axes_in);
    std::string name;
    for (int a : axes_in) name += std::to_string(a) + " ";
    INFO("axes ", name);
    check_close(k::sum(x, ax), s);
    check_close(k::mean(x, ax), me);
    check_close(k::max(x, ax), mx);
    check_close(k::min(x, ax), mn);
    check_close(k::prod(x, ax), pr);
    check_close(k::var(x, ax), va);
    check_close(k::std(x, ax), sd);
    check_close(k::logsumexp(x, ax), lse);
    T kd = k::sum(x, ax, true);
    CHECK(kd.shape() == k::Shape{od[0], od[1], od[2]});
    k::Shape dropped;
    for (int i = 0; i < 3; ++i)
      if (!red[i]) dropped.push_back(d[i]);
    CHECK(k::max(x, ax).shape() == dropped);
  }
}

TEST_CASE("reference: softmax, log_softmax, argmax on every axis of a 3-D tensor") {
  T x = rnd({2, 3, 4}, 21) * 3.0;
  auto v = x.to_vector<double>();
  const int64_t d[3] = {2, 3, 4};
  const int64_t st[3] = {12, 4, 1};
  for (int axis = 0; axis < 3; ++axis) {
    std::vector<double> sm(v.size()), lsm(v.size());
    std::vector<int64_t> am;
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 3; ++j)
        for (int64_t l = 0; l < 4; ++l) {
          int64_t idx[3] = {i, j, l};
          if (idx[axis] != 0) continue;
          int64_t base = i * 12 + j * 4 + l;
          double m = -1e300, s = 0;
          int64_t best = 0;
          for (int64_t q = 0; q < d[axis]; ++q) {
            if (v[base + q * st[axis]] > m) m = v[base + q * st[axis]], best = q;
          }
          for (int64_t q = 0; q < d[axis]; ++q) s += std::exp(v[base + q * st[axis]] - m);
          for (int64_t q = 0; q < d[axis]; ++q) {
            sm[base + q * st[axis]] = std::exp(v[base + q * st[axis]] - m) / s;
            lsm[base + q * st[axis]] = v[base + q * st[axis]] - m - std::log(s);
          }
          am.push_back(best);
        }
    INFO("axis ", axis);
    check_close(k::softmax(x, axis), sm);
    check_close(k::log_softmax(x, axis - 3), lsm);
    check_close(k::softmax(k::cast(x, k::float32), axis), sm, 1e-6);
    auto got = k::argmax(x, axis).to_vector<int64_t>();
    CHECK(got == am);
  }
}

TEST_CASE("reference: every transpose of a 3-D tensor and gather on every axis") {
  T x = k::reshape(k::range(0.0, 24.0, 1.0, k::float64), {2, 3, 4});
  const int64_t d[3] = {2, 3, 4};
  std::vector<std::array<int, 3>> perms = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  for (const auto& p : perms) {
    std::vector<double> expected;
    int64_t idx[3];
    for (idx[p[0]] = 0; idx[p[0]] < d[p[0]]; ++idx[p[0]])
      for (idx[p[1]] = 0; idx[p[1]] < d[p[1]]; ++idx[p[1]])
        for (idx[p[2]] = 0; idx[p[2]] < d[p[2]]; ++idx[p[2]])
          expected.push_back(static_cast<double>(idx[0] * 12 + idx[1] * 4 + idx[2]));
    T t = k::transpose(x, {p[0], p[1], p[2]});
    CHECK(t.shape() == k::Shape{d[p[0]], d[p[1]], d[p[2]]});
    check_close(t, expected);
  }
  for (int axis = 0; axis < 3; ++axis) {
    T ind({1, 0, 1});
    T g = k::gather(x, ind, axis);
    std::vector<double> expected;
    int64_t gd[3] = {d[0], d[1], d[2]};
    gd[axis] = 3;
    const int64_t sel[3] = {1, 0, 1};
    for (int64_t i = 0; i < gd[0]; ++i)
      for (int64_t j = 0; j < gd[1]; ++j)
        for (int64_t l = 0; l < gd[2]; ++l) {
          int64_t src[3] = {i, j, l};
          src[axis] = sel[src[axis]];
          expected.push_back(static_cast<double>(src[0] * 12 + src[1] * 4 + src[2]));
        }
    INFO("gather axis ", axis);
    CHECK(g.shape() == k::Shape{gd[0], gd[1], gd[2]});
    check_close(g, expected);
  }
}

TEST_CASE("reference: mean of integers is float32, and the mean of nothing is nan") {
  T xi(std::vector<int32_t>{1, 2, 3, 5}, {2, 2});
  T m = k::mean(xi);
  CHECK(m.dtype() == k::float32);
  CHECK(m.item<float>() == doctest::Approx(2.75));
  check_close(k::mean(xi, 1), {1.5, 4.0});
  T mb = k::mean(k::greater(xi, T(std::vector<int32_t>{2}, {1})));
  CHECK(mb.item<float>() == doctest::Approx(0.5));
  CHECK(std::isnan(k::mean(k::zeros({0, 3})).item<float>()));
  check_close(k::mean(k::zeros({2, 0}), 0), {});
}

TEST_CASE("reference: divide is true division, floor_divide floors like Python's //") {
  T a(std::vector<int32_t>{7, -7, 7, -7, 0}, {5});
  T b(std::vector<int32_t>{2, 2, -2, -2, 3}, {5});
  T q = k::divide(a, b);
  CHECK(q.dtype() == k::float32);
  check_close(q, {3.5, -3.5, -3.5, 3.5, 0.0});
  T f = k::floor_divide(a, b);
  CHECK(f.dtype() == k::int32);
  CHECK(f.to_vector<int32_t>() == std::vector<int32_t>{3, -4, -4, 3, 0});
  check_close(k::floor_divide(k::cast(a, k::float64), k::cast(b, k::float64)), {3, -4, -4, 3, 0});
  CHECK_THROWS_AS(k::floor_divide(a, T(std::vector<int32_t>{0}, {1})), k::ValueError);
  // A scalar divisor is not rounded to the integer dtype first.
  check_close(a / 2.5, {2.8, -2.8, 2.8, -2.8, 0.0}, 1e-6);
  check_close(10.0 / b, {5, 5, -5, -5, 10.0 / 3}, 1e-6);
}

}  // namespace test_reference

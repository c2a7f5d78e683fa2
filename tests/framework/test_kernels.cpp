// The fast CPU kernels against the reference loops kept beside them
// (kiln::set_cpu_kernels). Shapes are chosen to reach every fast path: the
// row-blocked direct convolution (K = 9 and a generic K, with and without
// padding, c_out a multiple of 16), its fused bias/relu epilogue, the blocked
// filter gradient, the fused bias/relu backward, the 2×2 max-pool and its
// backward (with ties and odd sizes), and the parallel dropout stream.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/cpu/parallel.h"
#include "kiln/backend/cpu_kernels.h"
#include "kiln/ops/fused_updates.h"
#include "kiln/autodiff/gradient_tape.h"
#include "kiln/ops/ops.h"
#include "kiln/ops/random.h"
#include "kiln/core/tensor.h"
#include "kiln/autodiff/variable.h"
#include "sanitizers.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_kernels {

namespace k = kiln;
using T = k::Tensor;

namespace {
// Restores the fast kernels even when a check throws.
struct KernelMode {
  explicit KernelMode(k::CpuKernels m) { k::set_cpu_kernels(m); }
  ~KernelMode() { k::set_cpu_kernels(k::CpuKernels::fast); }
};

// Runs f (which returns outputs then gradients) with both kernel sets.
std::vector<T> run_with(k::CpuKernels m, const std::function<std::vector<T>()>& f) {
  KernelMode mode(m);
  return f();
}

void check_same(const std::vector<T>& fast, const std::vector<T>& ref, double tol, const std::string& what) {
  REQUIRE(fast.size() == ref.size());
  for (std::size_t i = 0; i < fast.size(); ++i) {
    INFO(what, ", result ", i);
    REQUIRE(fast[i].shape() == ref[i].shape());
    auto a = fast[i].to_vector<double>(), b = ref[i].to_vector<double>();
    double worst = 0;
    std::size_t at = 0;
    for (std::size_t j = 0; j < a.size(); ++j) {
      const double e = std::abs(a[j] - b[j]) / (1 + std::abs(b[j]));
      if (e > worst || std::isnan(e)) worst = std::isnan(e) ? 1e30 : e, at = j;
    }
    INFO("worst element ", at, ": fast ", a.empty() ? 0 : a[at], " reference ", b.empty() ? 0 : b[at]);
    CHECK(worst <= tol);
  }
}

T normal(const k::Shape& s, uint64_t seed) { return k::random::normal(s, 0, 1, k::float32, seed); }
}  // namespace

TEST_CASE("kernels: the switch defaults to fast and can be set") {
  CHECK(k::cpu_kernels() == k::CpuKernels::fast);
  {
    KernelMode m(k::CpuKernels::reference);
    CHECK(k::cpu_kernels() == k::CpuKernels::reference);
  }
  CHECK(k::cpu_kernels() == k::CpuKernels::fast);
}

TEST_CASE("kernels: fused conv2d + bias + relu and its gradients, fast against reference") {
  struct Case {
    k::Shape x, w;
    std::string padding;
    std::array<int, 2> strides;
  };
  const std::vector<Case> cases = {
      {{3, 28, 28, 1}, {3, 3, 1, 32}, "valid", {1, 1}},  // the guide's first conv (K = 9)
      {{2, 11, 9, 1}, {3, 3, 1, 16}, "same", {1, 1}},    // padded windows, a row of 9 (4 + 4 + 1)
      {{2, 10, 7, 3}, {3, 3, 3, 32}, "same", {2, 1}},    // K = 27: the generic-K row kernel
      {{2, 8, 8, 2}, {2, 2, 2, 8}, "valid", {1, 1}},     // c_out = 8: the per-pixel kernel
      {{2, 6, 6, 4}, {3, 3, 4, 16}, "valid", {1, 1}},    // K = 36: im2col + GEMM
  };
  uint64_t seed = 7;
  for (const auto& c : cases)
    for (bool relu : {false, true})
      for (bool input_grad : {true, false}) {  // without it, the fused filter + bias backward
      const T x = normal(c.x, seed++), w = normal(c.w, seed++), b = normal({c.w[3]}, seed++);
      auto f = [&] {
        k::Variable xv(x), wv(w), bv(b);
        k::GradientTape tape;
        T xin = input_grad ? xv.value() : x;
        T y = k::conv2d_bias(xin, wv.value(), bv.value(), {.strides = c.strides, .padding = c.padding}, relu);
        T r = k::random::normal(y.shape(), 0, 1, k::float32, 99);
        if (!input_grad) {
          auto g = tape.gradient(k::sum(k::multiply(y, r)), std::vector<k::Variable>{wv, bv});
          return std::vector<T>{y, *g[0], *g[1]};
        }
        auto g = tape.gradient(k::sum(k::multiply(y, r)), std::vector<k::Variable>{xv, wv, bv});
        return std::vector<T>{y, *g[0], *g[1], *g[2]};
      };
      // The filter gradient sums thousands of float32 products in a different order: 1e-4.
      check_same(run_with(k::CpuKernels::fast, f), run_with(k::CpuKernels::reference, f), 1e-4,
                 "x " + c.x.to_string() + " w " + c.w.to_string() + " " + c.padding + (relu ? " relu" : ""));
      // The unfused op equals the fused one without the bias.
      T plain = k::conv2d(x, w, {.strides = c.strides, .padding = c.padding});
      T fused = k::conv2d_bias(x, w, k::zeros({c.w[3]}), {.strides = c.strides, .padding = c.padding});
      check_same({fused}, {plain}, 0, "conv2d_bias with a zero bias");
    }
}

TEST_CASE("kernels: bias_add + relu gradient (Dense's fused pass), fast against reference") {
  for (bool relu : {false, true})
    for (k::Shape s : {k::Shape{64, 64}, k::Shape{700, 48}, k::Shape{5, 3, 7}}) {
      const T x = normal(s, 11), b = normal({s[-1]}, 12);
      auto f = [&] {
        k::Variable xv(x), bv(b);
        k::GradientTape tape;
        T y = k::bias_add(xv.value(), bv.value(), relu);
        T r = k::random::normal(y.shape(), 0, 1, k::float32, 13);
        auto g = tape.gradient(k::sum(k::multiply(y, r)), std::vector<k::Variable>{xv, bv});
        return std::vector<T>{y, *g[0], *g[1]};
      };
      check_same(run_with(k::CpuKernels::fast, f), run_with(k::CpuKernels::reference, f), 1e-5,
                 "bias_add " + s.to_string() + (relu ? " relu" : ""));
    }
}

TEST_CASE("kernels: 2x2 max-pool and its backward, fast against reference, with ties") {
  for (k::Shape s : {k::Shape{3, 26, 26, 32}, k::Shape{2, 7, 9, 12}, k::Shape{1, 5, 4, 3}}) {
    // Small integers make ties common: the first maximum of a window must win in both.
    const T x = k::cast(k::random::uniform(s, 0, 4, k::int32, 21), k::float32);
    auto f = [&] {
      k::Variable xv(x);
      k::GradientTape tape;
      T y = k::max_pool2d(xv.value());
      T r = k::random::normal(y.shape(), 0, 1, k::float32, 22);
      auto g = tape.gradient(k::sum(k::multiply(y, r)), xv);
      return std::vector<T>{y, *g};
    };
    check_same(run_with(k::CpuKernels::fast, f), run_with(k::CpuKernels::reference, f), 0, "max_pool2d " + s.to_string());
  }
}

TEST_CASE("kernels: parallel dropout draws the reference stream exactly") {
  for (int64_t n : {1, 7, 100001}) {
    const T x = normal({n}, 31);
    auto f = [&] {
      k::random::set_seed(5);
      k::Variable xv(x);
      k::GradientTape tape;
      T y = k::dropout(xv.value(), 0.3);
      auto g = tape.gradient(k::sum(y), xv);
      return std::vector<T>{y, *g};
    };
    check_same(run_with(k::CpuKernels::fast, f), run_with(k::CpuKernels::reference, f), 0, "dropout n=" + std::to_string(n));
  }
}

TEST_CASE("kernels: the vectorised Adam step equals the scalar one exactly") {
  for (bool amsgrad : {false, true})
    for (int64_t n : {5, 8, 100003}) {
      auto f = [&] {
        k::Variable w(normal({n}, 41)), m(k::zeros({n})), v(k::zeros({n})), vh(k::zeros({n}));
        for (int step = 1; step <= 3; ++step) {
          const T g = normal({n}, 50 + step);
          k::fused::adam_update(w, m, v, amsgrad ? &vh : nullptr, g, 1e-3 * step, 0.9, 0.999, 1e-7);
        }
        return std::vector<T>{w.value(), m.value(), v.value(), vh.value()};
      };
      check_same(run_with(k::CpuKernels::fast, f), run_with(k::CpuKernels::reference, f), 0,
                 "adam n=" + std::to_string(n) + (amsgrad ? " amsgrad" : ""));
    }
}

TEST_CASE("kernels: fused batch normalization and its gradient, fast against reference and the composed formula") {
  struct Case {
    k::Shape x;
    bool scale, center;
  };
  for (const Case& c : {Case{{64, 64}, true, true}, Case{{3, 9, 7, 16}, true, false}, Case{{700, 5}, false, true},
                        Case{{2, 3}, false, false}}) {
    const int64_t C = c.x[-1];
    const T x = k::add(k::multiply(normal(c.x, 61), k::fill({}, 3.0)), k::fill({}, 2.0));
    const T gamma = normal({C}, 62), beta = normal({C}, 63);
    auto f = [&] {
      k::Variable xv(x), gv(gamma), bv(beta);
      k::GradientTape tape;
      auto r = k::batch_norm_training(xv.value(), c.scale ? gv.value() : T(), c.center ? bv.value() : T(), 1e-3);
      T w = k::random::normal(r.y.shape(), 0, 1, k::float32, 64);
      auto g = tape.gradient(k::sum(k::multiply(r.y, w)), std::vector<k::Variable>{xv, gv, bv},
                             k::UnconnectedGradients::Zero);
      return std::vector<T>{r.y, r.mean, r.variance, *g[0], *g[1], *g[2]};
    };
    const auto fast = run_with(k::CpuKernels::fast, f);
    check_same(fast, run_with(k::CpuKernels::reference, f), 1e-4, "batch_norm " + c.x.to_string());
    // The composed formula, with the same upstream gradient.
    std::vector<int> axes;
    for (int i = 0; i + 1 < c.x.rank(); ++i) axes.push_back(i);
    k::Variable xv(x), gv(gamma), bv(beta);
    k::GradientTape tape;
    T m = k::mean(xv.value(), k::Axes(axes), true), v = k::var(xv.value(), k::Axes(axes), true);
    T y = k::multiply(k::subtract(xv.value(), m), k::rsqrt(k::add(v, k::fill({}, 1e-3))));
    if (c.scale) y = k::multiply(y, gv.value());
    if (c.center) y = k::add(y, bv.value());
    T w = k::random::normal(y.shape(), 0, 1, k::float32, 64);
    auto g = tape.gradient(k::sum(k::multiply(y, w)), std::vector<k::Variable>{xv, gv, bv}, k::UnconnectedGradients::Zero);
    check_same({fast[0], fast[1], fast[2], fast[3], fast[4], fast[5]},
               {y, k::reshape(m, {C}), k::reshape(v, {C}), *g[0], *g[1], *g[2]}, 1e-4,
               "batch_norm against the composed ops " + c.x.to_string());
  }
}

// CTest also runs this case as `framework_threads` with KILN_NUM_THREADS=8: regions
// with fewer parts than the pool has threads (a batch of 2 split over images)
// alternate with regions that use every thread. A worker that mixed up two regions
// would skip or repeat a part, and the results below would differ. Under
// AddressSanitizer the rounds take minutes; a tenth of them still checks every
// access, and the normal build's two runs hunt the race.
TEST_CASE("kernels: parallel regions of different widths, back to back") {
#ifdef KILN_TEST_ASAN
  constexpr int rounds = 2000;
#else
  constexpr int rounds = 20000;
#endif
  const T small = normal({2, 4, 4, 8}, 71);
  const T big_a = normal({1 << 17}, 72), big_b = normal({1 << 17}, 73);
  T pooled_ref, product_ref;
  {
    KernelMode mode(k::CpuKernels::reference);
    pooled_ref = k::max_pool2d(small);
  }
  product_ref = k::multiply(big_a, big_b);
  const auto pooled_expected = pooled_ref.to_vector<float>();
  const auto product_expected = product_ref.to_vector<float>();
  int mismatches = 0;
  for (int it = 0; it < rounds && mismatches == 0; ++it) {
    if (k::max_pool2d(small).to_vector<float>() != pooled_expected) ++mismatches;
    if (k::multiply(big_a, big_b).to_vector<float>() != product_expected) ++mismatches;
  }
  CHECK(mismatches == 0);
}

// The pool hands parts to whoever asks first (the caller included), so every
// part must run exactly once whichever threads take it, and a part's exception
// must reach the caller.
TEST_CASE("kernels: every part of a parallel region runs exactly once, and its exception reaches the caller") {
  for (int round = 0; round < 2000; ++round) {
    const int parts = 1 + round % 9;
    const int64_t n = 1 + (round * 37) % 101;
    std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
    std::atomic<int> calls{0};
    k::cpu::parallel_for_parts(n, parts, [&](int, int64_t b, int64_t e) {
      calls.fetch_add(1);
      for (int64_t i = b; i < e; ++i) hits[static_cast<std::size_t>(i)].fetch_add(1);
    });
    int wrong = 0;
    for (auto& h : hits) wrong += h.load() != 1;
    REQUIRE(wrong == 0);
    REQUIRE(calls.load() == std::min<int64_t>(n, std::min(parts, k::cpu::num_threads())));
  }
  const int parts = k::cpu::num_threads();
  CHECK_THROWS_WITH(k::cpu::parallel_for_parts(4 * parts, parts,
                                               [&](int part, int64_t, int64_t) {
                                                 if (part == parts - 1) throw std::runtime_error("part failed");
                                               }),
                    "part failed");
  // The pool still works after an exception.
  std::atomic<int64_t> sum{0};
  k::cpu::parallel_for_parts(1000, parts, [&](int, int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) sum.fetch_add(i);
  });
  CHECK(sum.load() == 999 * 1000 / 2);
}

TEST_CASE("kernels: denormal floats flush to zero, as in TensorFlow's and XLA's CPU kernels") {
  const float tiny = std::numeric_limits<float>::denorm_min() * 1000;  // about 1.4e-42
  REQUIRE(tiny > 0.f);
  REQUIRE(tiny < std::numeric_limits<float>::min());
  // Large enough for the pool's workers and small enough for the calling thread alone.
  for (int64_t n : {int64_t{3}, int64_t{1} << 17}) {
    CAPTURE(n);
    kiln::Tensor x = kiln::fill({n}, 1.0, kiln::DType::float32) * tiny;  // a denormal result: flushed
    kiln::Tensor y = kiln::fill({n}, 1e-30, kiln::DType::float32) * 1e-10f;
    const auto xs = x.to_vector<float>(), ys = y.to_vector<float>();
    CHECK(xs.front() == 0.f);
    CHECK(xs.back() == 0.f);
    CHECK(ys.front() == 0.f);
    CHECK(ys.back() == 0.f);
    // Normal results are untouched.
    CHECK((kiln::fill({n}, 1e-20, kiln::DType::float32) * 1e-10f).to_vector<float>().back() ==
          doctest::Approx(1e-30).epsilon(1e-6));
  }
}

TEST_CASE("BLAS: a CPU with AVX2 never runs OpenBLAS's generic SSE3 kernels, nor one with AVX-512 its AVX2 ones") {
  const std::string core = k::blas_kernels();
  INFO("OpenBLAS kernels: '", core, "'");
  if (core.empty()) return;  // a BLAS that does not name its kernels
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && !std::getenv("OPENBLAS_CORETYPE") &&
      !std::getenv("KILN_BLAS_CORETYPE"))
    CHECK(core != "Prescott");
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512dq") && !std::getenv("OPENBLAS_CORETYPE") && !std::getenv("KILN_BLAS_CORETYPE"))
    CHECK((core != "Haswell" && core != "Zen"));
#endif
  // The GEMMs still give the exact product of small integers.
  std::vector<float> v(64);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
  const T a(v, k::Shape{8, 8});
  std::vector<float> c = k::matmul(a, a).to_vector<float>();
  CHECK(c[0] == 1120.0f);   // sum_j j * 8j
  CHECK(c[63] == 16996.0f);  // sum_j (56 + j)(8j + 7)
}

}  // namespace test_kernels

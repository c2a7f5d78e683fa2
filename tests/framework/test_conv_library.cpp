// The CPU convolution libraries (kiln::set_conv_library): oneDNN's results
// and gradients, direct and Winograd, against Kiln's own kernels and the
// reference loops, over the shapes that reach every part of the wrapper
// (strides, "same" padding that is larger after than before, dilation, 1x1,
// non-square kernels, bias and relu, a batch of one, Winograd's blocked
// layouts in and out), and the switch itself.
#include <doctest/doctest.h>

#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "kiln/autodiff/gradient_tape.h"
#include "kiln/autodiff/variable.h"
#include "kiln/backend/cpu_convolutions.h"
#include "kiln/backend/cpu_kernels.h"
#include "kiln/core/error.h"
#include "kiln/core/tensor.h"
#include "kiln/ops/ops.h"
#include "kiln/ops/random.h"
#include "test_util.h"

namespace k = kiln;
using T = k::Tensor;

namespace {
// Restores the automatic choice and the fast kernels even when a check throws.
struct Library {
  explicit Library(k::ConvLibrary l, k::CpuKernels kernels = k::CpuKernels::fast) {
    k::set_conv_library(l);
    k::set_cpu_kernels(kernels);
  }
  ~Library() {
    k::set_conv_library(k::ConvLibrary::automatic);
    k::set_cpu_kernels(k::CpuKernels::fast);
  }
};

struct Case {
  k::Shape x, w;
  std::string padding;
  std::array<int, 2> strides, dilation;
  bool bias, relu;
};

// y, dx, dw (and db) for a random upstream gradient.
std::vector<T> run(const Case& c, uint64_t seed) {
  const T x = k::random::normal(c.x, 0, 1, k::float32, seed);
  const T w = k::random::normal(c.w, 0, 0.2, k::float32, seed + 1);
  const T b = k::random::normal({c.w[3]}, 0, 1, k::float32, seed + 2);
  k::Variable xv(x), wv(w), bv(b);
  k::GradientTape tape;
  const k::Conv2DOptions opt{.strides = c.strides, .padding = c.padding, .dilation = c.dilation};
  T y = c.bias ? k::conv2d_bias(xv.value(), wv.value(), bv.value(), opt, c.relu) : k::conv2d(xv.value(), wv.value(), opt);
  const T r = k::random::normal(y.shape(), 0, 1, k::float32, seed + 3);
  auto g = tape.gradient(k::sum(k::multiply(y, r)), std::vector<k::Variable>{xv, wv, bv});
  std::vector<T> out{y, *g[0], *g[1]};
  if (c.bias) out.push_back(*g[2]);
  return out;
}

// Largest |a - b| / (1 + |b|) over all results.
double worst_error(const std::vector<T>& a, const std::vector<T>& b) {
  REQUIRE(a.size() == b.size());
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    REQUIRE(a[i].shape() == b[i].shape());
    const auto u = a[i].to_vector<double>(), v = b[i].to_vector<double>();
    for (std::size_t j = 0; j < u.size(); ++j) {
      const double e = std::abs(u[j] - v[j]) / (1 + std::abs(v[j]));
      worst = std::isnan(e) ? 1e30 : std::max(worst, e);
    }
  }
  return worst;
}
}  // namespace

TEST_CASE("conv library: the switch defaults to automatic and can be set") {
  CHECK(k::conv_library() == k::ConvLibrary::automatic);
  {
    Library l(k::ConvLibrary::kiln);
    CHECK(k::conv_library() == k::ConvLibrary::kiln);
  }
  CHECK(k::conv_library() == k::ConvLibrary::automatic);
}

TEST_CASE("conv library: oneDNN's convolutions and gradients equal Kiln's kernels and the reference loops") {
  KILN_REQUIRE_TOOL(!k::onednn_version().empty(), "oneDNN (libdnnl-dev; Kiln built with KILN_ONEDNN)");
  const std::vector<Case> cases = {
      {{2, 9, 9, 16}, {3, 3, 16, 32}, "same", {1, 1}, {1, 1}, true, true},
      {{2, 12, 12, 64}, {3, 3, 64, 64}, "same", {1, 1}, {1, 1}, true, true},  // Winograd's shapes
      {{3, 10, 10, 32}, {3, 3, 32, 16}, "valid", {1, 1}, {1, 1}, false, false},
      {{2, 10, 10, 16}, {3, 3, 16, 16}, "same", {2, 2}, {1, 1}, false, false},  // padding 0 before, 1 after
      {{1, 11, 8, 20}, {3, 3, 20, 24}, "valid", {1, 2}, {1, 1}, true, false},
      {{2, 12, 12, 16}, {3, 3, 16, 16}, "same", {1, 1}, {2, 2}, true, true},    // dilation 2
      {{2, 8, 8, 32}, {1, 1, 32, 48}, "valid", {2, 2}, {1, 1}, false, false},   // the ResNet shortcut
      {{2, 7, 9, 16}, {1, 5, 16, 16}, "same", {1, 1}, {1, 1}, true, true},      // 1x5
      {{3, 6, 6, 3}, {3, 3, 3, 16}, "same", {1, 1}, {1, 1}, true, true},        // a small patch (K = 27)
  };
  uint64_t seed = 11;
  for (const auto& c : cases) {
    INFO("x ", c.x.to_string(), " w ", c.w.to_string(), " ", c.padding, " strides ", c.strides[0], "x",
         c.strides[1], " dilation ", c.dilation[0]);
    std::vector<T> onednn, winograd, kiln_kernels, reference;
    {
      Library l(k::ConvLibrary::onednn);
      onednn = run(c, seed);
    }
    {
      Library l(k::ConvLibrary::onednn_winograd);
      winograd = run(c, seed);
    }
    {
      Library l(k::ConvLibrary::kiln);
      kiln_kernels = run(c, seed);
    }
    {
      Library l(k::ConvLibrary::onednn, k::CpuKernels::reference);
      reference = run(c, seed);
    }
    // Sums of up to a few thousand float32 products in different orders.
    CHECK(worst_error(onednn, reference) <= 1e-4);
    CHECK(worst_error(winograd, reference) <= 1e-4);
    CHECK(worst_error(kiln_kernels, reference) <= 1e-4);
    seed += 10;
  }
}

TEST_CASE("conv library: automatic hands a 3x3 convolution over 64 channels to oneDNN's Winograd, a 1x1 one to its "
          "direct kernel, and a 1-channel one to Kiln") {
  KILN_REQUIRE_TOOL(!k::onednn_version().empty(), "oneDNN (libdnnl-dev; Kiln built with KILN_ONEDNN)");
  auto forward = [](k::ConvLibrary l, const T& x, const T& w) {
    Library lib(l);
    return k::conv2d(x, w, {.padding = "same"}).to_vector<float>();
  };
  const T x64 = k::random::normal({2, 8, 8, 64}, 0, 1, k::float32, 3);
  const T w64 = k::random::normal({3, 3, 64, 64}, 0, 0.1, k::float32, 4);
  const auto winograd = forward(k::ConvLibrary::onednn_winograd, x64, w64);
  CHECK(forward(k::ConvLibrary::automatic, x64, w64) == winograd);
  // oneDNN's Winograd kernels need AVX-512; without them it runs its direct kernel for both.
  const auto direct = forward(k::ConvLibrary::onednn, x64, w64);
  if (winograd != direct) CHECK(forward(k::ConvLibrary::automatic, x64, w64) != direct);
  else MESSAGE("this CPU has no oneDNN Winograd kernel (it needs AVX-512): the 3x3 layer runs oneDNN's direct one");
  const T w11 = k::random::normal({1, 1, 64, 64}, 0, 0.1, k::float32, 7);
  CHECK(forward(k::ConvLibrary::automatic, x64, w11) == forward(k::ConvLibrary::onednn, x64, w11));
  const T x1 = k::random::normal({2, 8, 8, 1}, 0, 1, k::float32, 5);
  const T w1 = k::random::normal({3, 3, 1, 32}, 0, 0.1, k::float32, 6);
  CHECK(forward(k::ConvLibrary::automatic, x1, w1) == forward(k::ConvLibrary::kiln, x1, w1));
}

TEST_CASE("conv library: a batch too large for Winograd's working memory runs in parts, with the same results") {
  KILN_REQUIRE_TOOL(!k::onednn_version().empty(), "oneDNN (libdnnl-dev; Kiln built with KILN_ONEDNN)");
  // About 110 MB of transformed tiles and blocked copies for the whole batch,
  // over the 64 MB limit: each pass runs in halves, and the filter gradient of
  // the second half is added to the first's. (No relu: Winograd's rounding
  // would flip the mask of outputs near zero, and the gradients with it.)
  const Case c{{64, 32, 32, 64}, {3, 3, 64, 64}, "same", {1, 1}, {1, 1}, false, false};
  std::vector<T> direct, winograd;
  {
    Library l(k::ConvLibrary::onednn);
    direct = run(c, 5);
  }
  {
    Library l(k::ConvLibrary::onednn_winograd);
    winograd = run(c, 5);
  }
  // A part missing or misplaced would be off by the order of the values themselves.
  CHECK(worst_error({winograd[0]}, {direct[0]}) <= 1e-4);  // y
  CHECK(worst_error({winograd[1]}, {direct[1]}) <= 1e-4);  // dx
  // dW sums 65,536 products per element, and Winograd's transforms round differently.
  CHECK(worst_error({winograd[2]}, {direct[2]}) <= 2e-3);
  CHECK(k::max(k::abs(direct[2])).item<float>() > 1.0f);
}

// The library choice and the plugin are read once per process, so these run in
// a child process of this test binary, with the environment under test.
namespace {
int run_child(const std::string& env, const std::string& mode) {
  const std::string cmd = env + " KILN_TEST_CONV_CHILD=" + mode + " /proc/" + std::to_string(getpid()) +
                          "/exe -tc='conv library: in a child process*' > /dev/null 2>&1";
  return std::system(cmd.c_str());
}
}  // namespace

TEST_CASE("conv library: in a child process, with the environment the parent chose") {
  const char* mode = std::getenv("KILN_TEST_CONV_CHILD");
  if (!mode) return;  // only the child runs it
  const T x = k::random::uniform({2, 6, 6, 4}), w = k::random::uniform({3, 3, 4, 8});
  if (std::string(mode) == "bad_name") {
    CHECK_THROWS_WITH_AS(k::conv_library(),
                         "KILN_CONV_LIBRARY: expected 'automatic', 'kiln', 'onednn' or 'onednn_winograd', "
                         "received 'fastest'",
                         k::ValueError);
  } else if (std::string(mode) == "no_plugin") {
    CHECK(k::onednn_version().empty());
    // Asked for by name, oneDNN's absence is an error that says why; automatic uses Kiln's kernels.
    CHECK_THROWS_WITH_AS(k::conv2d(x, w), doctest::Contains("conv2d: oneDNN is not available: "), k::RuntimeError);
    std::vector<float> want, got;
    {
      Library reference(k::ConvLibrary::automatic, k::CpuKernels::reference);
      want = k::conv2d(x, w).to_vector<float>();
    }
    {
      Library automatic(k::ConvLibrary::automatic);
      got = k::conv2d(x, w).to_vector<float>();
    }
    for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == doctest::Approx(want[i]).epsilon(1e-5));
  }
}

TEST_CASE("conv library: a bad KILN_CONV_LIBRARY is a ValueError naming the choices; a missing plugin an error") {
  CHECK(run_child("KILN_CONV_LIBRARY=fastest", "bad_name") == 0);
  CHECK(run_child("KILN_CONV_LIBRARY=onednn KILN_ONEDNN_PLUGIN=/nonexistent/libkiln_onednn.so", "no_plugin") == 0);
  // The child's checks can fail: the same check under the wrong environment does.
  CHECK(run_child("KILN_CONV_LIBRARY=kiln", "bad_name") != 0);
}

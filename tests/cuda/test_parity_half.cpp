// GPU parity of the 16-bit float types. On a GPU they are stored as float16 /
// bfloat16 and converted by the device's cast kernel, while every op computes
// them in float32 (ops/half_compute.h): the conversions must round exactly as
// the CPU's (to nearest even, once, from any source type), and ops, gradients
// and a whole model's training must agree with the CPU within 16-bit rounding.
#include <doctest/doctest.h>

#include <kiln/kiln.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gpu_test_util.h"
#include "kiln/core/half.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_parity_half {

namespace k = kiln;
namespace L = kiln::layers;
using k::Tensor;
using Ins = std::vector<Tensor>;
using namespace kiln::cudatest;

namespace {

const std::vector<k::DType> kHalves = {k::float16, k::bfloat16};

/// One 16-bit rounding apart: both devices compute in float32, whose last-bit
/// differences can land on either side of a 16-bit rounding boundary.
Tol half_tol(k::DType d) { return d == k::bfloat16 ? Tol{1.6e-2, 1e-2} : Tol{2e-3, 1e-3}; }

std::vector<uint16_t> bits_of(const Tensor& t) {
  const Tensor c = t.to(k::Device::cpu());
  std::vector<uint16_t> out;
  if (c.dtype() == k::float16)
    for (auto h : c.to_vector<k::float16_t>()) out.push_back(h.bits);
  else
    for (auto h : c.to_vector<k::bfloat16_t>()) out.push_back(h.bits);
  return out;
}

/// The CPU's and the GPU's casts of x to `to` hold the same bits (16-bit
/// results) or the same values (others).
void check_cast(const std::string& what, const Tensor& x, k::DType to) {
  INFO(what);
  const Tensor c = k::cast(x, to);
  const Tensor g = k::cast(x.to(gpu()), to);
  REQUIRE(g.device() == gpu());
  REQUIRE(g.dtype() == to);
  if (k::is_half_float(to)) {
    const auto cb = bits_of(c), gb = bits_of(g);
    REQUIRE(cb.size() == gb.size());
    int bad = 0;
    // A NaN is a NaN: CUDA's conversions give the canonical 0x7fff, the CPU's
    // keep the payload's top bits (as F16C does).
    auto is_nan = [to](uint16_t b) {
      return to == k::float16 ? (b & 0x7c00) == 0x7c00 && (b & 0x3ff) : (b & 0x7f80) == 0x7f80 && (b & 0x7f);
    };
    for (std::size_t i = 0; i < cb.size() && bad < 5; ++i)
      if (cb[i] != gb[i] && !(is_nan(cb[i]) && is_nan(gb[i]))) {
        ++bad;
        FAIL_CHECK("element " << i << ": CPU bits 0x" << std::hex << cb[i] << ", GPU bits 0x" << gb[i]);
      }
  } else {
    check_close(what, c, g.to(k::Device::cpu()), {0, 0});
  }
}

/// Values that exercise rounding: ties at 16-bit precision, subnormals,
/// overflow, signed zeros, infinities and NaN, beside ordinary numbers. None is
/// a float32 subnormal: the CPU flushes those to zero (as TensorFlow's CPU
/// kernels do), the GPU keeps them.
Tensor hard_floats(k::DType d) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> v = {0.0, -0.0, 1.0, -2.5, 0.1, 1.0 + std::ldexp(1.0, -11), 1.0 + 3 * std::ldexp(1.0, -11),
                           1.0 + std::ldexp(1.0, -8), 1.0 + 3 * std::ldexp(1.0, -8), 65504.0, 65520.0, 70000.0, 1e-7,
                           6e-8, 2e-38, 3e38, -3e38, inf, -inf, std::nan(""), 12345.678, -0.3333333};
  // Rounded once from double: float32 would round 1 + 2^-11 + 2^-40 down to the tie first.
  if (d == k::float64) v.push_back(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40));
  Tensor t = k::cast(Tensor(v, k::Shape{static_cast<int64_t>(v.size())}), d);
  return k::concat({t, k::cast(k::random::normal({4000}, 0, 3, k::float64, 77), d)}, 0);
}

}  // namespace

TEST_CASE("GPU parity: 16-bit float casts round as the CPU's, from and to every dtype") {
  KILN_REQUIRE_GPU("16-bit cast parity");
  for (k::DType h : kHalves) {
    for (k::DType f : {k::float32, k::float64}) check_cast(k::dtype_name(f) + " -> " + k::dtype_name(h), hard_floats(f), h);
    // Integers through double, rounded once; 70000 overflows float16 to inf.
    const Tensor ints = Tensor(std::vector<int64_t>{0, 1, -7, 2049, 2051, 65519, 65521, 70000, 16777217, 123456789},
                               k::Shape{10});
    for (k::DType i : {k::int32, k::int64}) check_cast(k::dtype_name(i) + " -> " + k::dtype_name(h), k::cast(ints, i), h);
    check_cast("uint8 -> " + k::dtype_name(h), k::cast(Tensor({0, 1, 200, 255}), k::uint8), h);
    check_cast("bool -> " + k::dtype_name(h), Tensor({true, false, true}), h);
    // From 16 bits: to the other 16-bit type, to floats, and (finite, non-negative) to integers.
    const Tensor x = k::cast(hard_floats(k::float32), h);
    for (k::DType o : kHalves)
      if (o != h) check_cast(k::dtype_name(h) + " -> " + k::dtype_name(o), x, o);
    for (k::DType f : {k::float32, k::float64, k::bool_}) check_cast(k::dtype_name(h) + " -> " + k::dtype_name(f), x, f);
    const Tensor small = k::cast(k::random::uniform({500}, 0, 250, k::float32, 78), h);
    for (k::DType i : {k::int32, k::int64, k::uint8}) check_cast(k::dtype_name(h) + " -> " + k::dtype_name(i), small, i);
  }
}

TEST_CASE("GPU parity: 16-bit tensors fill, copy and move between devices bit for bit") {
  KILN_REQUIRE_GPU("16-bit fill and copy parity");
  for (k::DType h : kHalves) {
    CAPTURE(k::dtype_name(h));
    const Tensor x = k::cast(hard_floats(k::float32), h);
    const Tensor g = x.to(gpu());
    CHECK(bits_of(g) == bits_of(x));
    CHECK(bits_of(g.clone()) == bits_of(x));
    CHECK(bits_of(k::ones_like(g)) == bits_of(k::ones_like(x)));
    CHECK(bits_of(k::full_like(g, 0.1)) == bits_of(k::full_like(x, 0.1)));
    CHECK(bits_of(k::full_like(g, 70000.0)) == bits_of(k::full_like(x, 70000.0)));
    // Slices and transposes gather strided elements.
    const Tensor m = k::cast(k::random::normal({37, 53}, 0, 1, k::float32, 79), h);
    const Tensor mg = m.to(gpu());
    CHECK(bits_of(k::transpose(mg)) == bits_of(k::transpose(m)));
    CHECK(bits_of(mg[{k::Slice(3, 30, 2), k::Slice(5, 40)}]) == bits_of(m[{k::Slice(3, 30, 2), k::Slice(5, 40)}]));
    CHECK(bits_of(k::concat({mg, mg}, 1)) == bits_of(k::concat({m, m}, 1)));
  }
}

TEST_CASE("GPU parity: ops on 16-bit floats, forward and backward") {
  KILN_REQUIRE_GPU("16-bit op parity");
  for (k::DType h : kHalves) {
    CAPTURE(k::dtype_name(h));
    const Tol t = half_tol(h);
    auto rn = [h](const k::Shape& s, uint64_t seed) { return k::random::normal(s, 0, 1, h, seed); };
    parity("add, multiply, exp", [](const Ins& a) { return k::exp(a[0] * a[1] + a[0]); }, {rn({6, 7}, 1), rn({6, 7}, 2)},
           t);
    parity("matmul", [](const Ins& a) { return k::matmul(a[0], a[1]); }, {rn({16, 40}, 3), rn({40, 24}, 4)}, t);
    parity("sum of 4096", [](const Ins& a) { return k::sum(a[0], {1}); }, {rn({3, 4096}, 5)}, t);
    parity("softmax", [](const Ins& a) { return k::softmax(a[0]); }, {rn({5, 33}, 6)}, t);
    parity("conv2d", [](const Ins& a) { return k::conv2d(a[0], a[1], {.padding = "same"}); },
           {rn({2, 9, 9, 3}, 7), rn({3, 3, 3, 8}, 8)}, t);
    parity("max_pool2d", [](const Ins& a) { return k::max_pool2d(a[0]); },
           {rn({2, 8, 8, 4}, 9)}, t);
    parity("slice, transpose, concat", [](const Ins& a) {
      return k::concat({k::transpose(a[0])[{k::Slice(1, 5)}], a[1]}, 0);
    }, {rn({6, 7}, 10), rn({3, 6}, 11)}, t);
  }
}

TEST_CASE("a float16 and a bfloat16 CNN train on the GPU as on the CPU") {
  KILN_REQUIRE_GPU("16-bit training");
  for (k::DType h : kHalves) {
    CAPTURE(k::dtype_name(h));
    const Tensor x = k::random::normal({64, 8, 8, 1}, 0, 1, h, 21);
    const Tensor y = k::cast(k::mean(x[{k::Slice(), k::Slice(0, 4), k::Slice(0, 4)}], {1, 2, 3}) > 0.0, k::int32);
    std::vector<std::vector<double>> losses;
    std::vector<std::vector<Tensor>> weights;
    for (bool on_gpu : {false, true}) {
      k::random::set_seed(5);
      k::Sequential m({L::Input({8, 8, 1}), L::Conv2D(4, 3, {.activation = "relu", .dtype = h}), L::MaxPooling2D(2),
                       L::Flatten(), L::Dense(3, {.activation = "softmax", .dtype = h})});
      if (on_gpu) m.to(gpu());
      m.compile({.optimizer = "adam", .loss = "sparse_categorical_crossentropy"});
      auto hist = m.fit(x, y, {.batch_size = 16, .epochs = 4, .verbose = 0, .shuffle = false});
      losses.push_back(hist.history["loss"]);
      for (const auto& w : m.weights()) {
        CHECK(w.dtype() == h);
        CHECK(w.device() == (on_gpu ? gpu() : k::Device::cpu()));
      }
      weights.push_back(m.get_weights());
    }
    REQUIRE(losses[0].size() == 4);
    REQUIRE(losses[1].size() == 4);
    for (std::size_t e = 0; e < 4; ++e) {
      CHECK(std::isfinite(losses[1][e]));
      CHECK(losses[1][e] == doctest::Approx(losses[0][e]).epsilon(h == k::bfloat16 ? 0.05 : 0.01));
    }
    CHECK(losses[1].back() < losses[1].front());
    REQUIRE(weights[0].size() == weights[1].size());
    // Sixteen Adam steps in 16-bit weights: a few ulps of drift between the devices.
    for (std::size_t i = 0; i < weights[0].size(); ++i)
      check_close("weight " + std::to_string(i), weights[0][i], weights[1][i],
                  h == k::bfloat16 ? Tol{0.1, 0.05} : Tol{0.02, 0.01});
  }
}

}  // namespace test_parity_half

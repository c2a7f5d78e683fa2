// float16 and bfloat16: the conversions (every binary16 value, random floats
// against the compiler's _Float16 and a nearest-value reference, doubles
// without double rounding), literals, casts and printing as TF prints them,
// Keras's promotion table, ops computed in float32 and rounded once, and
// gradients through 16-bit tensors.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "kiln/core/half.h"
#include "kiln/kiln.h"

namespace test_half_dtypes {

namespace k = kiln;

namespace {

// The bfloat16 nearest to f, ties to even, found by comparing the two candidates in double.
uint16_t nearest_bfloat16(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint16_t lo = static_cast<uint16_t>(x >> 16), hi = static_cast<uint16_t>(lo + 1);
  // Past the largest finite value, rounding sees 2^128 where infinity lies.
  auto value = [](uint16_t b) {
    const double v = static_cast<float>(k::bfloat16_t::from_bits(b));
    return std::isinf(v) ? std::copysign(0x1p128, v) : v;
  };
  const double dlo = std::abs(value(lo) - f), dhi = std::abs(value(hi) - f);
  if (dlo != dhi) return dlo < dhi ? lo : hi;
  return (lo & 1) ? hi : lo;
}

std::string text(const k::Tensor& t) {
  std::ostringstream s;
  s << t;
  return s.str();
}

template <class H>
std::vector<uint16_t> bits_of(const k::Tensor& t) {
  std::vector<uint16_t> out;
  for (H h : t.to_vector<H>()) out.push_back(h.bits);
  return out;
}

}  // namespace

TEST_CASE("every float16 value converts to float and back unchanged") {
  for (uint32_t b = 0; b < 65536; ++b) {
    const auto h = k::float16_t::from_bits(static_cast<uint16_t>(b));
    const float f = h;
    if (std::isnan(f)) {
      CHECK(std::isnan(static_cast<float>(k::float16_t(f))));
      continue;
    }
    REQUIRE(k::float16_t(f).bits == b);
    const auto bf = k::bfloat16_t::from_bits(static_cast<uint16_t>(b));
    if (!std::isnan(static_cast<float>(bf))) REQUIRE(k::bfloat16_t(static_cast<float>(bf)).bits == b);
  }
}

TEST_CASE("float to float16 and bfloat16 rounds to nearest even") {
  std::mt19937 gen(7);
  std::uniform_int_distribution<uint32_t> any;
  int checked = 0;
  for (int i = 0; i < 400000; ++i) {
    // Half the draws near float16's range, where its subnormals, normals and overflow are.
    uint32_t x = any(gen);
    if (i % 2) x = (x & 0x80000000u) | (0x30000000u + x % 0x18000000u);
    const float f = std::bit_cast<float>(x);
    if (std::isnan(f)) continue;
#if defined(__FLT16_MAX__) && !defined(__clang__)
    const _Float16 ref = static_cast<_Float16>(f);
    REQUIRE(k::float16_t(f).bits == std::bit_cast<uint16_t>(ref));
#endif
    REQUIRE(k::bfloat16_t(f).bits == nearest_bfloat16(f));
    ++checked;
  }
  CHECK(checked > 390000);
  // The ties: halfway between 1 and the next float16 rounds to even (1), the next one up to 1 + 2^-9.
  CHECK(k::float16_t(1.0f + 0x1p-11f).bits == 0x3c00);
  CHECK(k::float16_t(1.0f + 3 * 0x1p-11f).bits == 0x3c02);
  CHECK(k::float16_t(65519.0f).bits == 0x7bff);
  CHECK(k::float16_t(65520.0f).bits == 0x7c00);  // the tie above the largest value overflows
  CHECK(k::float16_t(0x1p-25f).bits == 0);        // half the smallest subnormal: to even, zero
  CHECK(k::float16_t(0x1.000002p-25f).bits == 1);
  CHECK(k::bfloat16_t(std::bit_cast<float>(0x3f808000u)).bits == 0x3f80);
  CHECK(k::bfloat16_t(std::bit_cast<float>(0x3f818000u)).bits == 0x3f82);
  CHECK(std::isnan(static_cast<float>(k::bfloat16_t(std::bit_cast<float>(0x7f800001u)))));
}

TEST_CASE("a double converts to float16 in one rounding") {
  // Through float this would round twice: 1 + 2^-11 + 2^-40 becomes the tie 1 + 2^-11, then 1.
  CHECK(k::float16_t(1.0 + 0x1p-11 + 0x1p-40).bits == 0x3c01);
  CHECK(k::bfloat16_t(1.0 + 0x1p-8 + 0x1p-40).bits == 0x3f81);
  CHECK(k::float16_t(0.1).bits == 0x2e66);
  CHECK(k::Tensor({1.0 + 0x1p-11 + 0x1p-40}, k::float16).to_vector<k::float16_t>()[0].bits == 0x3c01);
}

TEST_CASE("16-bit literals, casts and printing follow TF") {
  const k::Tensor h({1.0, 2.5, 0.1, -3.0}, k::float16);
  CHECK(h.dtype() == k::float16);
  CHECK(k::dtype_size(k::float16) == 2);
  CHECK(k::dtype_from_name("bfloat16") == k::bfloat16);
  CHECK(text(h) == "tf.Tensor([ 1.   2.5  0.1 -3. ], shape=(4,), dtype=float16)");
  CHECK(text(k::Tensor({{1.0, 2.5}, {0.1, -3.0}}, k::float16)) ==
        "tf.Tensor(\n[[ 1.   2.5]\n [ 0.1 -3. ]], shape=(2, 2), dtype=float16)");
  CHECK(text(k::Tensor({{1e-5, 65504.0}, {1.0, 2.0}}, k::float16)) ==
        "tf.Tensor(\n[[1.00e-05 6.55e+04]\n [1.00e+00 2.00e+00]], shape=(2, 2), dtype=float16)");
  CHECK(text(k::Tensor({1.0, 2.5, 0.1, -3.0}, k::bfloat16)) ==
        "tf.Tensor([1 2.5 0.100098 -3], shape=(4,), dtype=bfloat16)");
  CHECK(text(k::Tensor(0.1, k::bfloat16)) == "tf.Tensor(0.100098, shape=(), dtype=bfloat16)");
  CHECK(text(k::Tensor(0.1, k::float16)) == "tf.Tensor(0.1, shape=(), dtype=float16)");
  CHECK(text(k::Tensor({70000.0}, k::float32).cast(k::float16)) == "tf.Tensor([inf], shape=(1,), dtype=float16)");
  // Casts in every direction go through the value, integer truncation included.
  const k::Tensor back = h.cast(k::int32);
  CHECK(back.to_vector<int32_t>() == std::vector<int32_t>{1, 2, 0, -3});
  CHECK(k::Tensor({3, -7}).cast(k::bfloat16).to_vector<float>() == std::vector<float>{3.0f, -7.0f});
  CHECK(h.cast(k::bfloat16).cast(k::float64).to_vector<double>()[2] == 0.10009765625);
  CHECK(h.cast(k::bool_).to_vector<bool>() == std::vector<bool>{true, true, true, true});
  // A long tensor takes the vectorized path: it must agree with the scalar one.
  std::vector<float> many(1000);
  for (std::size_t i = 0; i < many.size(); ++i) many[i] = std::ldexp(static_cast<float>(i) - 500.5f, -static_cast<int>(i % 30));
  const k::Tensor m(many, k::Shape{1000});
  const auto h16 = m.cast(k::float16).to_vector<k::float16_t>();
  const auto b16 = m.cast(k::bfloat16).to_vector<k::bfloat16_t>();
  const auto h32 = m.cast(k::float16).cast(k::float32).to_vector<float>();
  for (std::size_t i = 0; i < many.size(); ++i) {
    REQUIRE(h16[i].bits == k::float16_t(many[i]).bits);
    REQUIRE(b16[i].bits == k::bfloat16_t(many[i]).bits);
    REQUIRE(h32[i] == static_cast<float>(h16[i]));
  }
}

TEST_CASE("16-bit dtypes promote as keras.backend.result_type") {
  const k::Tensor h({1.0, 2.0}, k::float16), b({1.0, 2.0}, k::bfloat16);
  const k::Tensor i({1, 2}), f({1.0f, 2.0f});
  // keras.backend.result_type: int with float16 gives float16, float16 with bfloat16 float32.
  CHECK(k::power(h, i).dtype() == k::float16);
  CHECK(k::true_divide(i, b).dtype() == k::bfloat16);
  CHECK(k::hypot(h, b).dtype() == k::float32);
  CHECK(k::power(h, f).dtype() == k::float32);
  CHECK(k::true_divide(h, i).to_vector<float>() == std::vector<float>{1.0f, 1.0f});
  // TF's add keeps one dtype, as for float32 with int32: the error names what the user passed.
  const std::string msg = [&] {
    try {
      (void)(h + i);
    } catch (const k::TypeError& e) {
      return std::string(e.what());
    }
    return std::string();
  }();
  CHECK(msg.find("float16") != std::string::npos);
  CHECK((h * 2.0).dtype() == k::float16);
  CHECK((h > 1.0).dtype() == k::bool_);
  CHECK(k::argmax(h).dtype() == k::argmax(h.cast(k::float32)).dtype());
  CHECK(k::sum(b).dtype() == k::bfloat16);
}

TEST_CASE("ops on 16-bit tensors compute in float32 and round once") {
  const k::Tensor x({0.5, 1.25, -2.0}, k::float16);
  const k::Tensor e = k::exp(x);
  CHECK(e.dtype() == k::float16);
  // NumPy: np.exp(x.astype(np.float32)).astype(np.float16).
  CHECK(bits_of<k::float16_t>(e) == std::vector<uint16_t>{16024, 17147, 12373});
  // A sum of 4096 ones in float16 arithmetic would stop at 2048; it accumulates in float32.
  CHECK(k::sum(k::ones(k::Shape{4096}, k::float16)).item<float>() == 4096.0f);
  const k::Tensor a = k::random::normal(k::Shape{8, 16}, 0.0, 1.0, k::bfloat16, 1);
  const k::Tensor w = k::random::normal(k::Shape{16, 4}, 0.0, 1.0, k::bfloat16, 2);
  CHECK(a.dtype() == k::bfloat16);
  const k::Tensor y = k::matmul(a, w);
  CHECK(y.dtype() == k::bfloat16);
  const k::Tensor want = k::matmul(a.cast(k::float32), w.cast(k::float32)).cast(k::bfloat16);
  CHECK(bits_of<k::bfloat16_t>(y) == bits_of<k::bfloat16_t>(want));
  // Movement and layout ops keep the values bit for bit.
  const k::Tensor t = k::transpose(y);
  CHECK(t.dtype() == k::bfloat16);
  CHECK(bits_of<k::bfloat16_t>(k::transpose(t)) == bits_of<k::bfloat16_t>(y));
  const k::Tensor c = k::concat({x, x}, 0);
  CHECK(c.dtype() == k::float16);
  CHECK(c.shape() == k::Shape{6});
}

TEST_CASE("gradients flow through 16-bit tensors in their own dtype") {
  k::Variable v(k::Tensor({1.5, -2.0, 0.25}, k::float16));
  k::GradientTape tape;
  k::Tensor loss = k::sum(k::square(v) * 3.0);
  CHECK(loss.dtype() == k::float16);
  auto g = tape.gradient(loss, v);
  REQUIRE(g);
  CHECK(g->dtype() == k::float16);
  CHECK(g->to_vector<float>() == std::vector<float>{9.0f, -12.0f, 1.5f});
}

}  // namespace test_half_dtypes

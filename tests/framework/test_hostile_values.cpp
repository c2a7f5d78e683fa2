// Hostile values: shapes whose element or byte count overflows are an error
// naming the shape (never a wrapped small buffer, never "negative dimension").
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/core/tensor.h"
#include "kiln/ops/ops.h"
#include "test_util.h"

namespace k = kiln;
using kiln_test::contains;
using kiln_test::message_of;

namespace {
constexpr int64_t k2p32 = int64_t(1) << 32;
}  // namespace

TEST_CASE("shape arithmetic: an element count past int64 is a ValueError, never a wrap") {
  // 2 * 2^32 * 2^32 = 2^65 wrapped to 0 and gave a 0-byte buffer.
  const k::Shape huge{2, k2p32, k2p32};
  auto msg = message_of<k::ValueError>([&] { (void)huge.num_elements(); });
  CHECK(contains(msg, "(2, 4294967296, 4294967296)"));
  CHECK(contains(msg, "more elements than fit in int64"));
  msg = message_of<k::ValueError>([&] { k::transpose(k::ones(huge)); });
  CHECK(contains(msg, "(2, 4294967296, 4294967296)"));
  CHECK(contains(msg, "more elements than fit in int64"));
  CHECK_FALSE(contains(msg, "negative"));
  // A zero dimension makes the product zero, whatever the other factors.
  CHECK(k::Shape{k2p32, k2p32, 0}.num_elements() == 0);
  CHECK(k::ones(k::Shape{k2p32, k2p32, 0}).size() == 0);
  CHECK(k::Shape{3, 4, 5}.num_elements() == 60);
}

TEST_CASE("shape arithmetic: a byte count past what can be addressed is a ValueError") {
  // 2^31 * 2^31 elements fit in int64, but times 4 bytes they do not.
  auto msg = message_of<k::ValueError>([] { k::Tensor::empty(k::Shape{int64_t(1) << 31, int64_t(1) << 31}); });
  CHECK(contains(msg, "(2147483648, 2147483648)"));
  CHECK(contains(msg, "float32"));
  CHECK(contains(msg, "exceeds what can be addressed"));
}

TEST_CASE("shape arithmetic: reshape to a shape whose product wraps to the input's size is rejected") {
  // (2^62 + 4) * 4 = 2^64 + 16, which wrapped to 16 and aliased a 16-element buffer.
  const k::Tensor x = k::ones(k::Shape{16});
  auto msg = message_of<k::ValueError>([&] { k::reshape(x, k::Shape{(int64_t(1) << 62) + 4, 4}); });
  CHECK(contains(msg, "reshape"));
  CHECK(contains(msg, "more elements than fit in int64"));
  CHECK(k::reshape(x, k::Shape{4, -1}).shape() == k::Shape{4, 4});
}

TEST_CASE("NaN: relu, fused bias+relu, conv+bias+relu, max pooling and maximum/minimum propagate it") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (k::DType dt : {k::DType::float32, k::DType::float64}) {
    CAPTURE(k::dtype_name(dt));
    // 17 values so the vectorized body and the scalar tail both see a NaN.
    std::vector<double> v(17, -1.0);
    v[3] = nan, v[16] = nan, v[5] = 2.0;
    const k::Tensor x = k::Tensor(v, k::Shape{17}).cast(dt);
    auto r = k::relu(x).to_vector<double>();
    CHECK(std::isnan(r[3]));
    CHECK(std::isnan(r[16]));
    CHECK(r[0] == 0.0);
    CHECK(r[5] == 2.0);
    auto b = k::bias_add(k::reshape(x, {1, 17}), k::zeros({17}, dt), /*relu=*/true).to_vector<double>();
    CHECK(std::isnan(b[3]));
    CHECK(std::isnan(b[16]));
    CHECK(b[0] == 0.0);
    // A 1x1 convolution with 8 output channels (the vectorized path), one NaN pixel.
    k::Tensor img = k::fill({1, 2, 2, 1}, -1.0, dt);
    img = k::where(k::Tensor(std::vector<double>{0, 0, 0, 1}, k::Shape{1, 2, 2, 1}) > 0.5, k::fill({1, 2, 2, 1}, nan, dt), img);
    auto c = k::conv2d_bias(img, k::ones({1, 1, 1, 8}, dt), k::zeros({8}, dt), {}, /*relu=*/true).to_vector<double>();
    for (int i = 0; i < 24; ++i) CHECK(c[i] == 0.0);
    for (int i = 24; i < 32; ++i) CHECK(std::isnan(c[i]));
    // Max pooling: a NaN in the last position of the window still wins, over 8 and 1 channels.
    for (int64_t ch : {int64_t{8}, int64_t{1}}) {
      k::Tensor win = k::concat({k::fill({1, 1, 2, ch}, 5.0, dt), k::fill({1, 1, 2, ch}, nan, dt)}, 1);
      CHECK(std::isnan(k::max_pool2d(win).to_vector<double>()[0]));
      CHECK(std::isnan(k::max_pool2d(win, {.pool_size = {2, 2}, .strides = {1, 1}, .padding = "same"})
                           .to_vector<double>()[0]));
    }
    const k::Tensor one = k::ones({1}, dt), n1 = k::fill({1}, nan, dt);
    CHECK(std::isnan(k::maximum(one, n1).to_vector<double>()[0]));
    CHECK(std::isnan(k::maximum(n1, one).to_vector<double>()[0]));
    CHECK(std::isnan(k::minimum(one, n1).to_vector<double>()[0]));
    CHECK(std::isnan(k::minimum(n1, one).to_vector<double>()[0]));
  }
}

// Hostile values: shapes whose element or byte count overflows are an error
// naming the shape (never a wrapped small buffer, never "negative dimension").
#include <doctest/doctest.h>

#include <string>

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

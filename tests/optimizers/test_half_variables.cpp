// Optimizers on float16 and bfloat16 variables: the steps keep the variable
// and its slots in their 16-bit dtype and follow the same optimizer on a
// float32 copy to within the 16-bit type's rounding.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "helpers.h"
#include "kiln/optimizers/all.h"

namespace test_half_variables {

namespace k = kiln;
using namespace kiln::optimizers;

namespace {

void check_follows_float32(const std::function<std::unique_ptr<k::Optimizer>()>& make, k::DType half) {
  CAPTURE(k::dtype_name(half));
  const std::vector<double> init = {1.0, -2.0, 3.0};
  k::Variable w16(opt_test::vec(init).cast(half), {.name = "kernel"});
  k::Variable w32(opt_test::vec(init).cast(k::float32), {.name = "kernel"});
  auto o16 = make(), o32 = make();
  for (int t = 0; t < 3; ++t) {
    const k::Tensor g = opt_test::vec(opt_test::kGrads[t]);
    o16->apply({g.cast(half)}, {w16});
    o32->apply({g.cast(k::float32)}, {w32});
  }
  CHECK(w16.dtype() == half);
  for (const auto& slot : o16->variables())
    if (slot.shape() == w16.shape()) CHECK(slot.dtype() == half);
  // Each step rounds to the 16-bit type: a few units in its last place of the weights.
  const double ulp = half == k::float16 ? 0x1p-10 : 0x1p-7;
  const auto got = w16.read_value_untracked().to_vector<double>();
  const auto want = w32.read_value_untracked().to_vector<double>();
  bool moved = false;
  for (std::size_t i = 0; i < got.size(); ++i) {
    CHECK(std::abs(got[i] - want[i]) <= 4 * ulp * std::abs(want[i]));
    moved = moved || got[i] != init[i];
  }
  CHECK(moved);
}

}  // namespace

TEST_CASE("optimizers step float16 and bfloat16 variables in their own dtype") {
  for (k::DType half : {k::float16, k::bfloat16}) {
    check_follows_float32([] { return std::make_unique<SGD>(SGDOptions{.learning_rate = 0.1, .momentum = 0.9}); },
                          half);
    check_follows_float32([] { return std::make_unique<Adam>(AdamOptions{.learning_rate = 0.05}); }, half);
    check_follows_float32([] { return std::make_unique<RMSprop>(RMSpropOptions{.learning_rate = 0.05}); }, half);
  }
}

}  // namespace test_half_variables

// GradientTape::gradient with a ready hook (what data-parallel training starts
// its all-reduces from): each variable's final gradient, once, in the order the
// backward pass finishes them, equal to the gradients the call returns.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <vector>

#include "kiln/autodiff/gradient_tape.h"
#include "kiln/autodiff/variable.h"
#include "kiln/core/tensor.h"
#include "kiln/ops/ops.h"

namespace k = kiln;

TEST_CASE("GradientTape ready hook: every connected variable once, last layer first, with its final gradient") {
  k::Variable w1(k::Tensor({{1.0f, 2.0f}, {3.0f, 4.0f}})), w2(k::Tensor({{0.5f}, {-1.0f}}));
  k::Variable unused(k::Tensor({7.0f}));
  k::Tensor x({{1.0f, -1.0f}});
  std::vector<std::size_t> order;
  std::map<std::size_t, std::vector<float>> seen;
  k::GradientTape tape;
  // w1 is used twice, so its gradient is final only after both uses are back-propagated.
  k::Tensor h = k::tanh(k::matmul(x, w1.value())) + k::matmul(x, w1.value());
  k::Tensor loss = k::sum(k::matmul(h, w2.value()) * k::matmul(h, w2.value()));
  const auto grads = tape.gradient(loss, {w1, w2, unused}, [&](std::size_t i, const k::Tensor& g) {
    order.push_back(i);
    seen[i] = g.to_vector<float>();
  });
  CHECK(order == std::vector<std::size_t>{1, 0});
  REQUIRE(grads[0]);
  REQUIRE(grads[1]);
  CHECK_FALSE(grads[2]);
  CHECK(seen[0] == grads[0]->to_vector<float>());
  CHECK(seen[1] == grads[1]->to_vector<float>());
  // d loss / d w2 = 2 (h·w2) hᵀ, with h = tanh(x·w1) + x·w1 = tanh([-2, -2]) + [-2, -2].
  const float hv = std::tanh(-2.0f) - 2.0f, out = hv * 0.5f - hv;
  CHECK(seen[1][0] == doctest::Approx(2 * out * hv));
  CHECK(seen[1][1] == doctest::Approx(2 * out * hv));
}

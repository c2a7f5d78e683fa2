// NaN is never swallowed: relu (plain and fused into Dense and Conv2D) and
// max pooling pass it on as Keras does, so predict returns NaN, fit reports a
// NaN loss and TerminateOnNaN can stop the run.
#include <doctest/doctest.h>
#include <kiln/kiln.h>

#include <cmath>
#include <limits>

#include "kiln/callbacks/terminate_on_nan.h"

namespace k = kiln;
namespace L = kiln::layers;

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool all_nan(const k::Tensor& t) {
  for (double v : t.to_vector<double>())
    if (!std::isnan(v)) return false;
  return t.size() > 0;
}
}  // namespace

TEST_CASE("NaN: predict through Dense(relu) and Conv2D(relu) + MaxPooling2D returns NaN") {
  k::clear_session();
  k::random::set_seed(1);
  k::Sequential mlp({L::Input({3}), L::Dense(4, {.activation = "relu"}), L::Dense(2)});
  CHECK(all_nan(mlp.predict(k::fill({5, 3}, kNaN), {.verbose = 0})));
  k::Sequential cnn({L::Input({6, 6, 2}), L::Conv2D(8, {3, 3}, {.activation = "relu"}), L::MaxPooling2D({2, 2}),
                     L::Flatten(), L::Dense(2)});
  CHECK(all_nan(cnn.predict(k::fill({2, 6, 6, 2}, kNaN), {.verbose = 0})));
}

TEST_CASE("NaN: fit on all-NaN data reports a NaN loss, and TerminateOnNaN stops at the first batch") {
  k::clear_session();
  k::random::set_seed(2);
  auto make = [] {
    auto m = std::make_shared<k::Sequential>(
        std::vector<k::LayerPtr>{L::Input({3}), L::Dense(4, {.activation = "relu"}), L::Dense(1)});
    m->compile({.optimizer = "sgd", .loss = "mse"});
    return m;
  };
  const k::Tensor x = k::fill({32, 3}, kNaN), y = k::zeros({32, 1});
  auto h = make()->fit(x, y, {.batch_size = 8, .epochs = 2, .verbose = 0});
  REQUIRE(h["loss"].size() == 2);
  CHECK(std::isnan(h["loss"][0]));
  CHECK(std::isnan(h["loss"][1]));
  auto stopped = make()->fit(x, y, {.batch_size = 8, .epochs = 5, .verbose = 0,
                                    .callbacks = {std::make_shared<k::callbacks::TerminateOnNaN>()}});
  CHECK(stopped.epoch.size() == 1);
  CHECK(std::isnan(stopped["loss"][0]));
}

// Whole models in float16 and bfloat16 (layers built with dtype = float16 or
// bfloat16, 16-bit data): a CNN with batch normalization and dropout and an
// embedding + LSTM classifier train with the compiled fit, their losses fall,
// every weight and optimizer slot stays 16-bit, and the compiled steps agree
// with eager ones.
#include <doctest/doctest.h>
#include <kiln/kiln.h>

#include <cmath>
#include <string>
#include <vector>

namespace test_half_models {

namespace k = kiln;
namespace L = kiln::layers;

namespace {

k::Sequential half_cnn(k::DType dt) {
  return k::Sequential({L::Input({8, 8, 1}), L::Conv2D(4, 3, {.activation = "relu", .dtype = dt}), L::MaxPooling2D(2),
                        L::BatchNormalization({.dtype = dt}), L::Flatten(), L::Dropout(0.25),
                        L::Dense(3, {.activation = "softmax", .dtype = dt})});
}

void check_weights_are(const k::Model& m, k::DType dt) {
  for (const auto& w : m.weights()) CHECK(w.dtype() == dt);
}

}  // namespace

TEST_CASE("a float16 and a bfloat16 CNN train with fit, in their own dtype") {
  for (k::DType dt : {k::float16, k::bfloat16}) {
    CAPTURE(k::dtype_name(dt));
    k::random::set_seed(3);
    const k::Tensor x = k::random::normal({64, 8, 8, 1}, 0, 1, dt, 1);
    // A learnable label: the sign of the mean of the top-left quarter.
    const k::Tensor y = k::cast(k::mean(x[{k::Slice(), k::Slice(0, 4), k::Slice(0, 4)}], {1, 2, 3}) > 0.0, k::int32);
    auto m = half_cnn(dt);
    m.compile({.optimizer = "adam", .loss = "sparse_categorical_crossentropy", .metrics = {"accuracy"}});
    auto h = m.fit(x, y, {.batch_size = 16, .epochs = 8, .verbose = 0});
    const auto& loss = h.history["loss"];
    REQUIRE(loss.size() == 8);
    for (double l : loss) CHECK(std::isfinite(l));
    CHECK(loss.back() < loss.front());
    check_weights_are(m, dt);
    const k::Tensor p = m.predict(x);
    CHECK(p.dtype() == dt);
    CHECK(p.shape() == k::Shape{64, 3});
  }
}

TEST_CASE("16-bit compiled and eager training steps agree") {
  for (k::DType dt : {k::float16, k::bfloat16}) {
    CAPTURE(k::dtype_name(dt));
    const k::Tensor ids = k::cast(k::random::uniform({32, 6}, 0, 10, k::float32, 5), k::int32);
    const k::Tensor y = k::cast(k::random::uniform({32}, 0, 3, k::float32, 6), k::int32);
    std::vector<std::vector<double>> losses;
    for (bool jit : {true, false}) {
      k::random::set_seed(11);
      auto m = k::Sequential({L::Input({6}, {.dtype = k::int32}), L::Embedding(10, 4, {.dtype = dt}),
                              L::LSTM(5, {.dtype = dt}), L::Dense(3, {.dtype = dt})});
      m.compile({.optimizer = "sgd",
                 .loss = k::losses::SparseCategoricalCrossentropy({.from_logits = true}),
                 .jit_compile = jit});
      losses.push_back(m.fit(ids, y, {.batch_size = 8, .epochs = 2, .verbose = 0, .shuffle = false}).history["loss"]);
      check_weights_are(m, dt);
    }
    CHECK(losses[0] == losses[1]);
  }
}

}  // namespace test_half_models

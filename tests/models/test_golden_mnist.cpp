// Golden runs: the guide's MNIST CNN, exactly as examples/mnist_cnn.cpp builds
// it, trained for 5 epochs at batch 64 (issue: >= 96.5 % on the shipped MNIST
// test digits, >= 89 % on Fashion-MNIST's 10,000 test images).
#include <doctest/doctest.h>

#include "test_util.h"
#include <kiln/kiln.h>

#include <filesystem>
#include "guide_cnn.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_golden_mnist {

namespace k = kiln;
namespace L = kiln::layers;

namespace {
k::Sequential guide_cnn() { return k::examples::guide_cnn(); }

std::vector<float> train_and_evaluate(const k::datasets::TrainTest& data, double validation_split) {
  k::clear_session();
  k::random::set_seed(0);
  k::Tensor x_train = k::expand_dims(k::cast(data.train.x, k::float32) / 255.0f, -1);
  k::Tensor x_test = k::expand_dims(k::cast(data.test.x, k::float32) / 255.0f, -1);
  auto model = guide_cnn();
  model.compile({.optimizer = "adam",
                 .loss = k::losses::SparseCategoricalCrossentropy({.from_logits = true}),
                 .metrics = {"accuracy"}});
  auto h = model.fit(x_train, data.train.y,
                     {.batch_size = 64, .epochs = 5, .verbose = 0, .validation_split = validation_split});
  CHECK(h["loss"].size() == 5);
  for (int e = 1; e < 5; ++e) CHECK(h["loss"][e] < h["loss"][e - 1]);
  return model.evaluate(x_test, data.test.y, {.verbose = 0});
}
}  // namespace

TEST_CASE("golden: the guide's CNN reaches >= 96.5% on the shipped MNIST test digits") {
  auto r = train_and_evaluate(k::datasets::mnist::load_data(), 0.1);
  MESSAGE("MNIST test loss " << r[0] << ", accuracy " << r[1]);
  CHECK(r[1] >= 0.965f);
}

TEST_CASE("golden: the guide's CNN reaches >= 89% on Fashion-MNIST after 5 epochs") {
  KILN_REQUIRE_TOOL(std::filesystem::exists(k::datasets::fashion_mnist::default_path()),
                    "Fashion-MNIST (Debian package dataset-fashion-mnist)");
  auto r = train_and_evaluate(k::datasets::fashion_mnist::load_data(), 0.0);
  MESSAGE("Fashion-MNIST test loss " << r[0] << ", accuracy " << r[1]);
  CHECK(r[1] >= 0.89f);
}

}  // namespace test_golden_mnist

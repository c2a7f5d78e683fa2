// compile's steps_per_execution, as in Keras: fit and evaluate run that many
// steps per call of the train/test function (one replay when compiled), and
// the callbacks see each group as one batch, numbered by its last step.
#include <doctest/doctest.h>
#include <kiln/kiln.h>

#include <string>
#include <vector>

#include "test_util.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_steps_per_execution {

namespace k = kiln;
namespace L = kiln::layers;

namespace {

class BatchLog : public k::Callback {
 public:
  std::vector<int> begins, ends;
  void on_train_batch_begin(int b, const k::Logs&) override { begins.push_back(b); }
  void on_train_batch_end(int b, const k::Logs&) override { ends.push_back(b); }
};

struct Run {
  std::vector<double> loss, acc;
  std::vector<float> weights;
  std::vector<float> evaluated;
  std::vector<int> begins, ends;
};

Run fit(int steps_per_execution, bool eager) {
  k::clear_session();
  k::random::set_seed(5);
  k::Tensor x = k::random::normal({150, 8}, 0, 1, k::DType::float32, 2);
  k::Tensor y = k::random::uniform({150}, 0, 3, k::DType::int64, 3);
  auto model = std::make_shared<k::Sequential>(std::vector<k::LayerPtr>{
      L::Input({8}), L::Dense(16, {.activation = "relu"}), L::Dropout(0.2), L::Dense(3)});
  model->compile({.optimizer = "adam",
                  .loss = k::losses::SparseCategoricalCrossentropy({.from_logits = true}),
                  .metrics = {"accuracy"},
                  .run_eagerly = eager,
                  .steps_per_execution = steps_per_execution});
  auto log = std::make_shared<BatchLog>();
  // 150 rows at batch 16: 9 full batches and one of 6.
  auto h = model->fit(x, y, {.batch_size = 16, .epochs = 2, .verbose = 0, .callbacks = {log}});
  Run r{h["loss"], h["accuracy"], {}, model->evaluate(x, y, {.batch_size = 32, .verbose = 0}), log->begins, log->ends};
  for (const auto& w : model->weights()) {
    auto v = w.value().to_vector<float>();
    r.weights.insert(r.weights.end(), v.begin(), v.end());
  }
  return r;
}

}  // namespace

TEST_CASE("steps_per_execution: the same training, with callbacks once per group of steps") {
  const Run one = fit(1, false);
  for (bool eager : {false, true}) {
    CAPTURE(eager);
    const Run four = fit(4, eager);
    REQUIRE(four.weights.size() == one.weights.size());
    double worst = 0;
    for (std::size_t i = 0; i < one.weights.size(); ++i)
      worst = std::max(worst, static_cast<double>(std::abs(one.weights[i] - four.weights[i])));
    CHECK(worst <= 1e-6);
    for (std::size_t e = 0; e < one.loss.size(); ++e) {
      CHECK(four.loss[e] == doctest::Approx(one.loss[e]).epsilon(1e-6));
      CHECK(four.acc[e] == doctest::Approx(one.acc[e]).epsilon(1e-6));
    }
    for (std::size_t i = 0; i < one.evaluated.size(); ++i)
      CHECK(four.evaluated[i] == doctest::Approx(one.evaluated[i]).epsilon(1e-6));
    // Keras: on_train_batch_begin(first step), on_train_batch_end(last step); 10 steps in groups of 4.
    CHECK(four.begins == std::vector<int>{0, 4, 8, 0, 4, 8});
    CHECK(four.ends == std::vector<int>{3, 7, 9, 3, 7, 9});
  }
  CHECK(one.ends.size() == 20);
}

TEST_CASE("steps_per_execution: must be positive") {
  k::Sequential m({L::Input({2}), L::Dense(1)});
  CHECK(kiln_test::message_of([&] { m.compile({.loss = "mse", .steps_per_execution = 0}); }) ==
        "compile(): steps_per_execution must be a positive integer, got 0");
}

}  // namespace test_steps_per_execution

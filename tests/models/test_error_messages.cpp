// Error messages that point at what the user wrote: every array of a
// cardinality mismatch, the layer and its argument for an op error inside it
// (eager and in a traced step), JSON errors in words, unknown classes with how
// to register one, and numbers as they were typed.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "kiln/kiln.h"
#include "test_util.h"

namespace test_error_messages {

namespace k = kiln;
namespace L = kiln::layers;
using kiln_test::contains;
using kiln_test::message_of;

namespace {

std::shared_ptr<k::Sequential> embedding_model() {
  auto m = std::make_shared<k::Sequential>(std::vector<k::LayerPtr>{
      L::Input({3}, {.dtype = k::int64}), L::Embedding(10, 4, {.name = "embedding"}), L::Flatten(), L::Dense(1)});
  m->compile({.optimizer = "sgd", .loss = "mse"});
  return m;
}

k::Tensor indices_with(int64_t bad) { return k::Tensor(std::vector<int64_t>{1, 2, bad, 3, 4, 5}, k::Shape{2, 3}); }

}  // namespace

TEST_CASE("messages: the cardinality error lists x, y and sample_weight with their sizes") {
  auto m = std::make_shared<k::Sequential>(std::vector<k::LayerPtr>{L::Input({2}), L::Dense(1)});
  m->compile({.optimizer = "sgd", .loss = "mse"});
  const k::Tensor x = k::ones({20, 2}), y = k::ones({20, 1});
  auto msg = message_of<k::ValueError>([&] { m->fit(x, y, {.verbose = 0, .sample_weight = k::ones({5})}); });
  CHECK(contains(msg, "fit(): Data cardinality is ambiguous. Make sure all arrays contain the same number of samples."));
  CHECK(contains(msg, "'x' sizes: 20; 'y' sizes: 20; 'sample_weight' sizes: 5"));
  msg = message_of<k::ValueError>([&] { m->evaluate(x, k::ones({7, 1}), {.verbose = 0}); });
  CHECK(contains(msg, "evaluate(): Data cardinality is ambiguous"));
  CHECK(contains(msg, "'x' sizes: 20; 'y' sizes: 7"));
  // The validation arrays are checked on their own, and named as such.
  msg = message_of<k::ValueError>([&] {
    m->fit(x, y, {.epochs = 1, .verbose = 0,
                  .validation_data = k::ValidationData{k::ones({4, 2}), k::ones({4, 1}), k::ones({3})}});
  });
  CHECK(contains(msg, "fit() validation_data: Data cardinality is ambiguous"));
  CHECK(contains(msg, "'x' sizes: 4; 'y' sizes: 4; 'sample_weight' sizes: 3"));
}

TEST_CASE("messages: an Embedding fed an index out of range names the layer and input_dim") {
  auto m = embedding_model();
  const std::string head = "Exception encountered when calling layer 'embedding' (type Embedding).";
  // Called eagerly.
  auto msg = message_of<k::IndexError>([&] { (*m->layers()[0])(indices_with(50)); });
  CHECK(msg.rfind(head, 0) == 0);
  CHECK(contains(msg, "index 50, which is out of range for input_dim=10"));
  CHECK(contains(msg, "Arguments: input_dim=10, output_dim=4"));
  // Inside fit's traced step, where the gather kernel finds it at replay.
  const k::Tensor y = k::zeros({2, 1});
  m->fit(indices_with(0), y, {.epochs = 1, .verbose = 0});  // traces the step with valid indices
  msg = message_of<k::IndexError>([&] { m->fit(indices_with(50), y, {.epochs = 1, .verbose = 0}); });
  CHECK(contains(msg, head));
  CHECK(contains(msg, "50"));
  CHECK(contains(msg, "input_dim=10"));
  msg = message_of<k::IndexError>([&] { m->predict(indices_with(12), {.verbose = 0}); });
  CHECK(contains(msg, head));
  CHECK(contains(msg, "input_dim=10"));
}

TEST_CASE("messages: JSON errors are reworded, not nlohmann's text") {
  L::register_builtins();
  auto msg = message_of<k::ValueError>([] { k::models::model_from_json("{\"class_name\": \"Sequential\", \"config\": "); });
  CHECK(contains(msg, "model_from_json: not valid JSON: "));
  CHECK_FALSE(contains(msg, "[json.exception"));
  msg = message_of<k::Error>([] {
    k::models::model_from_json(R"({"class_name": "Functional", "config": {"name": "m", "layers": []}})");
  });
  CHECK(contains(msg, "key 'input_layers' is missing"));
  CHECK_FALSE(contains(msg, "[json.exception"));
  msg = message_of<k::Error>([] {
    k::models::model_from_json(R"({"class_name": "Sequential", "config": {"name": "s", "layers": [
      {"class_name": "InputLayer", "config": {"batch_shape": [null, 2]}},
      {"class_name": "Dense", "config": {"units": 2, "trainable": "yes"}}]}})");
  });
  CHECK(contains(msg, "Dense.from_config: 'trainable' must be a bool, got \"yes\""));
  msg = message_of<k::Error>([] {
    k::models::model_from_json(R"({"class_name": "Sequential", "config": {"name": "s", "layers": [
      {"class_name": "InputLayer", "config": {"batch_shape": [null, 2]}}, {"class_name": 5, "config": {}}]}})");
  });
  CHECK(contains(msg, "'class_name' must be a string, got a number (5)"));
  CHECK_FALSE(contains(msg, "[json.exception"));
}

TEST_CASE("messages: an unknown layer class names the three closest and how to register one") {
  L::register_builtins();
  const auto msg = message_of<k::NotFoundError>([] {
    k::models::model_from_json(R"({"class_name": "Sequential", "config": {"name": "s", "layers": [
      {"class_name": "InputLayer", "config": {"batch_shape": [null, 2]}},
      {"class_name": "QuantumDenseBlock", "config": {"units": 2}}]}})");
  });
  CHECK(contains(msg, "Unknown layer class: 'QuantumDenseBlock'."));
  CHECK(contains(msg, "The closest known names are '"));
  CHECK(contains(msg, "kiln::register_layer_class"));
  CHECK(contains(msg, "custom_objects"));
  // Not the whole catalogue: three names, not about 150.
  std::size_t quotes = 0;
  const auto from = msg.find("The closest known names are");
  const auto to = msg.find('.', from);
  for (std::size_t i = from; i < to; ++i) quotes += msg[i] == '\'';
  CHECK(quotes == 6);
  // A near miss still gets "Did you mean".
  const auto near = message_of<k::NotFoundError>([] {
    k::models::model_from_json(R"({"class_name": "Sequential", "config": {"name": "s", "layers": [
      {"class_name": "InputLayer", "config": {"batch_shape": [null, 2]}},
      {"class_name": "Dence", "config": {"units": 2}}]}})");
  });
  CHECK(contains(near, "Did you mean 'Dense'"));
  CHECK(contains(near, "register_layer_class"));
}

TEST_CASE("messages: numbers print in their shortest form") {
  auto msg = message_of<k::ValueError>([] { L::Dropout(1.5); });
  CHECK(contains(msg, "rate=1.5"));
  CHECK_FALSE(contains(msg, "1.500000"));
  msg = message_of<k::ValueError>([] { L::BatchNormalization({.epsilon = -1e-7}); });
  CHECK(contains(msg, "-1e-07"));
  auto m = std::make_shared<k::Sequential>(std::vector<k::LayerPtr>{L::Input({2}), L::Dense(1)});
  m->compile({.optimizer = "sgd", .loss = "mse"});
  msg = message_of<k::ValueError>(
      [&] { m->fit(k::ones({4, 2}), k::ones({4, 1}), {.verbose = 0, .validation_split = 1.25}); });
  CHECK(contains(msg, "validation_split must be in [0, 1), got 1.25"));
  // Configs keep what was written.
  const auto config = L::Dropout(0.1)->get_config();
  CHECK(config["rate"].dump() == "0.1");
}

}  // namespace test_error_messages

// Calling fit/evaluate/predict with more (or fewer) arrays than the model has
// inputs is a ValueError in Keras's words, never silently accepted.
#include <doctest/doctest.h>
#include <kiln/kiln.h>

#include "test_util.h"

namespace k = kiln;
namespace L = kiln::layers;
using kiln_test::contains;
using kiln_test::message_of;

TEST_CASE("a one-input model given two arrays raises Keras's 'expects 1 input(s)' error") {
  k::clear_session();
  k::Sequential seq({L::Input({3}), L::Dense(2)}, {.name = "seq"});
  seq.compile({.optimizer = "sgd", .loss = "mse"});
  const k::Tensor x = k::ones({5, 3}), x2 = k::ones({5, 3}), y = k::zeros({5, 2});
  // Keras 3: Layer "seq" expects 1 input(s), but it received 2 input tensors. Inputs received: [...]
  const std::string expected = "Layer \"seq\" expects 1 input(s), but it received 2 input tensors.";
  CHECK(contains(message_of<k::ValueError>([&] { seq.predict(k::Data{x, x2}, {.verbose = 0}); }), expected));
  CHECK(contains(message_of<k::ValueError>([&] { seq.fit(k::Data{x, x2}, y, {.epochs = 1, .verbose = 0}); }), expected));
  CHECK(contains(message_of<k::ValueError>([&] { seq.evaluate(k::Data{x, x2}, y, {.verbose = 0}); }), expected));
  CHECK(seq.predict(x, {.verbose = 0}).shape() == k::Shape{5, 2});

  // A two-input functional model given three arrays, and given one.
  auto a = L::Input({3}, {.name = "a"}), b = L::Input({3}, {.name = "b"});
  k::Model two({a, b}, {L::Add()({a, b})}, {.name = "two"});
  auto msg = message_of<k::ValueError>([&] { two.predict(k::Data{x, x2, x}, {.verbose = 0}); });
  CHECK(contains(msg, "Layer \"two\" expects 2 input(s), but it received 3 input tensors."));
  CHECK(contains(msg, "Tensor(shape=(5, 3))"));
  CHECK(contains(message_of<k::ValueError>([&] { two.predict(x, {.verbose = 0}); }),
                 "Layer \"two\" expects 2 input(s), but it received 1 input tensors."));
  CHECK(two.predict(k::Data{x, x2}, {.verbose = 0}).shape() == k::Shape{5, 3});
}

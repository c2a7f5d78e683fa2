// Keras docstring examples for every loss, with each reduction and sample weights.
#include <doctest/doctest.h>

#include <cmath>

#include "kiln/core/error.h"
#include "kiln/losses/losses.h"
#include "kiln/ops/reduce_ops.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_losses_keras {

using namespace kiln;
using doctest::Approx;

namespace {
double v(const Tensor& t) { return t.item<double>(); }
// A (1, 1) tensor (a nested one-element brace list is ambiguous).
Tensor m11(float x) { return Tensor(std::vector<float>{x}, Shape{1, 1}); }
void check_vec(const Tensor& t, std::vector<double> expected, double eps = 1e-3) {
  auto got = t.to_vector<double>();
  REQUIRE(got.size() == expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(expected[i]).epsilon(eps));
}
const Tensor T01() { return Tensor({{0.f, 1.f}, {0.f, 0.f}}); }
const Tensor P64() { return Tensor({{0.6f, 0.4f}, {0.4f, 0.6f}}); }
}  // namespace

TEST_CASE("MeanSquaredError docstring") {
  Tensor yt = T01(), yp({{1.f, 1.f}, {1.f, 0.f}});
  CHECK(v(losses::MeanSquaredError()(yt, yp)) == Approx(0.5));
  CHECK(v(losses::MeanSquaredError()(yt, yp, Tensor({0.7f, 0.3f}))) == Approx(0.25));
  CHECK(v(losses::MeanSquaredError({.reduction = "sum"})(yt, yp)) == Approx(1.0));
  check_vec(losses::MeanSquaredError({.reduction = "none"})(yt, yp), {0.5, 0.5});
  CHECK(losses::MeanSquaredError().name() == "mean_squared_error");
}

TEST_CASE("MeanAbsoluteError docstring") {
  Tensor yt = T01(), yp({{1.f, 1.f}, {1.f, 0.f}});
  CHECK(v(losses::MeanAbsoluteError()(yt, yp)) == Approx(0.5));
  CHECK(v(losses::MeanAbsoluteError()(yt, yp, Tensor({0.7f, 0.3f}))) == Approx(0.25));
  CHECK(v(losses::MeanAbsoluteError({.reduction = "sum"})(yt, yp)) == Approx(1.0));
  check_vec(losses::MeanAbsoluteError({.reduction = "none"})(yt, yp), {0.5, 0.5});
}

TEST_CASE("MeanAbsolutePercentageError docstring") {
  Tensor yt({{2.f, 1.f}, {2.f, 3.f}}), yp({{1.f, 1.f}, {1.f, 0.f}});
  CHECK(v(losses::MeanAbsolutePercentageError()(yt, yp)) == Approx(50.0));
  CHECK(v(losses::MeanAbsolutePercentageError()(yt, yp, Tensor({0.7f, 0.3f}))) == Approx(20.0));
  CHECK(v(losses::MeanAbsolutePercentageError({.reduction = "sum"})(yt, yp)) == Approx(100.0));
  check_vec(losses::MeanAbsolutePercentageError({.reduction = "none"})(yt, yp), {25.0, 75.0});
}

TEST_CASE("MeanSquaredLogarithmicError docstring") {
  Tensor yt = T01(), yp({{1.f, 1.f}, {1.f, 0.f}});
  CHECK(v(losses::MeanSquaredLogarithmicError()(yt, yp)) == Approx(0.240).epsilon(1e-3));
  CHECK(v(losses::MeanSquaredLogarithmicError()(yt, yp, Tensor({0.7f, 0.3f}))) == Approx(0.120).epsilon(1e-3));
  CHECK(v(losses::MeanSquaredLogarithmicError({.reduction = "sum"})(yt, yp)) == Approx(0.480).epsilon(1e-3));
  check_vec(losses::MeanSquaredLogarithmicError({.reduction = "none"})(yt, yp), {0.240, 0.240});
}

TEST_CASE("CosineSimilarity docstring") {
  Tensor yt({{0.f, 1.f}, {1.f, 1.f}}), yp({{1.f, 0.f}, {1.f, 1.f}});
  CHECK(v(losses::CosineSimilarity({.axis = 1})(yt, yp)) == Approx(-0.5));
  CHECK(v(losses::CosineSimilarity({.axis = 1})(yt, yp, Tensor({0.8f, 0.2f}))) == Approx(-0.0999).epsilon(1e-3));
  CHECK(v(losses::CosineSimilarity({.axis = 1, .reduction = "sum"})(yt, yp)) == Approx(-0.999).epsilon(1e-3));
  check_vec(losses::CosineSimilarity({.axis = 1, .reduction = "none"})(yt, yp), {0.0, -0.999});
  // keras.losses.cosine_similarity docstring; a zero vector gives 0, not nan.
  check_vec(losses::cosine_similarity({{0.f, 1.f}, {1.f, 1.f}, {1.f, 1.f}}, {{1.f, 0.f}, {1.f, 1.f}, {-1.f, -1.f}}),
            {0.0, -0.99999994, 0.99999994});
  check_vec(losses::cosine_similarity({{0.f, 0.f}}, {{1.f, 2.f}}), {0.0});
}

TEST_CASE("Huber docstring") {
  CHECK(v(losses::Huber()(T01(), P64())) == Approx(0.155));
  CHECK(v(losses::Huber()(T01(), P64(), Tensor({1.f, 0.f}))) == Approx(0.09));
  CHECK(v(losses::Huber({.reduction = "sum"})(T01(), P64())) == Approx(0.31));
  check_vec(losses::Huber({.reduction = "none"})(T01(), P64()), {0.18, 0.13});
  CHECK(losses::Huber().name() == "huber_loss");
  // delta: error 2 with delta 1.5 -> 1.5 * 2 - 0.5 * 1.5^2 = 1.875
  CHECK(v(losses::Huber({.delta = 1.5})(m11(0.f), m11(2.f))) == Approx(1.875));
}

TEST_CASE("LogCosh docstring") {
  Tensor yp({{1.f, 1.f}, {0.f, 0.f}});
  CHECK(v(losses::LogCosh()(T01(), yp)) == Approx(0.108).epsilon(2e-3));
  CHECK(v(losses::LogCosh()(T01(), yp, Tensor({0.8f, 0.2f}))) == Approx(0.087).epsilon(3e-3));
  CHECK(v(losses::LogCosh({.reduction = "sum"})(T01(), yp)) == Approx(0.217).epsilon(2e-3));
  check_vec(losses::LogCosh({.reduction = "none"})(T01(), yp), {0.21689041, 0.0});
  // Large errors do not overflow: log(cosh(100)) = 100 - log 2.
  CHECK(v(losses::log_cosh(m11(0.f), m11(100.f))) == Approx(100.0 - std::log(2.0)));
}

TEST_CASE("KLDivergence docstring") {
  CHECK(v(losses::KLDivergence()(T01(), P64())) == Approx(0.458).epsilon(1e-3));
  CHECK(v(losses::KLDivergence()(T01(), P64(), Tensor({0.8f, 0.2f}))) == Approx(0.366).epsilon(1e-3));
  CHECK(v(losses::KLDivergence({.reduction = "sum"})(T01(), P64())) == Approx(0.916).epsilon(1e-3));
  auto none = losses::KLDivergence({.reduction = "none"})(T01(), P64()).to_vector<double>();
  CHECK(none[0] == Approx(0.916).epsilon(1e-3));
  CHECK(none[1] == Approx(-3.08e-06).epsilon(1e-2));
}

TEST_CASE("Poisson docstring") {
  Tensor yp({{1.f, 1.f}, {0.f, 0.f}});
  CHECK(v(losses::Poisson()(T01(), yp)) == Approx(0.5));
  CHECK(v(losses::Poisson()(T01(), yp, Tensor({0.8f, 0.2f}))) == Approx(0.4));
  CHECK(v(losses::Poisson({.reduction = "sum"})(T01(), yp)) == Approx(0.999).epsilon(1e-3));
  check_vec(losses::Poisson({.reduction = "none"})(T01(), yp), {0.999, 0.0});
}

TEST_CASE("Hinge, SquaredHinge, CategoricalHinge docstrings") {
  CHECK(v(losses::Hinge()(T01(), P64())) == Approx(1.3));
  CHECK(v(losses::Hinge()(T01(), P64(), Tensor({1.f, 0.f}))) == Approx(0.55));
  CHECK(v(losses::Hinge({.reduction = "sum"})(T01(), P64())) == Approx(2.6));
  check_vec(losses::Hinge({.reduction = "none"})(T01(), P64()), {1.1, 1.5});
  // -1/1 labels are used as they are.
  check_vec(losses::hinge({{-1.f, 1.f}}, {{0.6f, 0.4f}}), {(1.6 + 0.6) / 2});

  CHECK(v(losses::SquaredHinge()(T01(), P64())) == Approx(1.86));
  CHECK(v(losses::SquaredHinge()(T01(), P64(), Tensor({1.f, 0.f}))) == Approx(0.73));
  CHECK(v(losses::SquaredHinge({.reduction = "sum"})(T01(), P64())) == Approx(3.72));
  check_vec(losses::SquaredHinge({.reduction = "none"})(T01(), P64()), {1.46, 2.26});

  CHECK(v(losses::CategoricalHinge()(T01(), P64())) == Approx(1.4));
  CHECK(v(losses::CategoricalHinge()(T01(), P64(), Tensor({1.f, 0.f}))) == Approx(0.6));
  CHECK(v(losses::CategoricalHinge({.reduction = "sum"})(T01(), P64())) == Approx(2.8));
  check_vec(losses::CategoricalHinge({.reduction = "none"})(T01(), P64()), {1.2, 1.6});
}

TEST_CASE("BinaryCrossentropy docstring (logits and probabilities)") {
  losses::BinaryCrossentropy bce({.from_logits = true});
  CHECK(v(bce(Tensor({0.f, 1.f, 0.f, 0.f}), Tensor({-18.6f, 0.51f, 2.94f, -12.8f}))) == Approx(0.8654).epsilon(1e-3));
  Tensor yt({{0.f, 1.f}, {0.f, 0.f}}), yp({{-18.6f, 0.51f}, {2.94f, -12.8f}});
  CHECK(v(bce(yt, yp)) == Approx(0.8654).epsilon(1e-3));
  CHECK(v(bce(yt, yp, Tensor({0.8f, 0.2f}))) == Approx(0.243).epsilon(1e-3));
  CHECK(v(losses::BinaryCrossentropy({.from_logits = true, .reduction = "sum"})(yt, yp)) == Approx(1.730).epsilon(1e-3));
  check_vec(losses::BinaryCrossentropy({.from_logits = true, .reduction = "none"})(yt, yp), {0.235, 1.496});
  // Probabilities: keras.losses.binary_crossentropy docstring.
  check_vec(losses::binary_crossentropy(T01(), P64()), {0.916, 0.714});
  CHECK(v(losses::BinaryCrossentropy()(T01(), P64())) == Approx(0.8149).epsilon(1e-3));
  // Clipping: a confident wrong probability gives -log(1e-7), not inf.
  CHECK(v(losses::BinaryCrossentropy()(m11(1.f), m11(0.f))) == Approx(-std::log(1e-7)).epsilon(1e-3));
  // Extreme logits stay finite.
  CHECK(v(bce(m11(1.f), m11(-200.f))) == Approx(200.0));
}

TEST_CASE("BinaryCrossentropy label_smoothing") {
  // y = [0, 1] smoothed by 0.1 -> [0.05, 0.95].
  // element 0: y=0.05, p=0.6; element 1: y=0.95, p=0.4.
  double e0 = -(0.05 * std::log(0.6) + 0.95 * std::log(0.4));
  double e1 = -(0.95 * std::log(0.4) + 0.05 * std::log(0.6));
  double expected = (e0 + e1) / 2;
  CHECK(v(losses::BinaryCrossentropy({.label_smoothing = 0.1})(Tensor({{0.f, 1.f}}), Tensor({{0.6f, 0.4f}}))) ==
        Approx(expected).epsilon(1e-5));
  CHECK(expected == Approx(0.8960).epsilon(1e-3));
}

TEST_CASE("BinaryFocalCrossentropy docstring") {
  Tensor y1({0.f, 1.f, 0.f, 0.f}), p1({-18.6f, 0.51f, 2.94f, -12.8f});
  CHECK(v(losses::BinaryFocalCrossentropy({.gamma = 2, .from_logits = true})(y1, p1)) == Approx(0.691).epsilon(1e-3));
  CHECK(v(losses::BinaryFocalCrossentropy({.apply_class_balancing = true, .gamma = 2, .from_logits = true})(y1, p1)) ==
        Approx(0.51).epsilon(2e-3));
  Tensor yt({{0.f, 1.f}, {0.f, 0.f}}), yp({{-18.6f, 0.51f}, {2.94f, -12.8f}});
  CHECK(v(losses::BinaryFocalCrossentropy({.gamma = 3, .from_logits = true})(yt, yp)) == Approx(0.647).epsilon(1e-3));
  CHECK(v(losses::BinaryFocalCrossentropy({.apply_class_balancing = true, .gamma = 3, .from_logits = true})(yt, yp)) ==
        Approx(0.482).epsilon(1e-3));
  CHECK(v(losses::BinaryFocalCrossentropy({.gamma = 3, .from_logits = true})(yt, yp, Tensor({0.8f, 0.2f}))) ==
        Approx(0.133).epsilon(2e-3));
  CHECK(v(losses::BinaryFocalCrossentropy({.apply_class_balancing = true, .gamma = 3, .from_logits = true})(
            yt, yp, Tensor({0.8f, 0.2f}))) == Approx(0.097).epsilon(4e-3));
  CHECK(v(losses::BinaryFocalCrossentropy({.gamma = 4, .from_logits = true, .reduction = "sum"})(yt, yp)) ==
        Approx(1.222).epsilon(1e-3));
  CHECK(v(losses::BinaryFocalCrossentropy(
            {.apply_class_balancing = true, .gamma = 4, .from_logits = true, .reduction = "sum"})(yt, yp)) ==
        Approx(0.914).epsilon(1e-3));
  check_vec(losses::BinaryFocalCrossentropy({.gamma = 5, .from_logits = true, .reduction = "none"})(yt, yp),
            {0.0017, 1.1561}, 3e-2);
  check_vec(losses::BinaryFocalCrossentropy(
                {.apply_class_balancing = true, .gamma = 5, .from_logits = true, .reduction = "none"})(yt, yp),
            {0.0004, 0.8670}, 1e-1);
  // Function docstring (probabilities).
  check_vec(losses::binary_focal_crossentropy(T01(), P64(), false, 0.25, 2.0), {0.330, 0.206}, 2e-3);
  // gamma = 0 is plain binary crossentropy.
  CHECK(v(losses::BinaryFocalCrossentropy({.gamma = 0})(T01(), P64())) ==
        Approx(v(losses::BinaryCrossentropy()(T01(), P64()))));
}

TEST_CASE("CategoricalCrossentropy docstring and TF-guide golden") {
  Tensor yt({{0.f, 1.f, 0.f}, {0.f, 0.f, 1.f}}), yp({{0.05f, 0.95f, 0.f}, {0.1f, 0.8f, 0.1f}});
  losses::CategoricalCrossentropy cce;
  CHECK(v(cce(yt, yp)) == Approx(1.177).epsilon(1e-3));
  CHECK(v(cce(yt, yp, Tensor({0.3f, 0.7f}))) == Approx(0.814).epsilon(1e-3));
  CHECK(v(losses::CategoricalCrossentropy({.reduction = "sum"})(yt, yp)) == Approx(2.354).epsilon(1e-3));
  check_vec(losses::CategoricalCrossentropy({.reduction = "none"})(yt, yp), {0.0513, 2.303});
  check_vec(losses::categorical_crossentropy(yt, yp), {0.0513, 2.303});
  // KERAS.md golden figure.
  CHECK(v(losses::CategoricalCrossentropy({.from_logits = true})(Tensor({{1.f, 0.f}}), Tensor({{-1.f, 3.f}}))) ==
        Approx(4.01815).epsilon(1e-5));
  // Un-normalised probabilities are renormalised first.
  CHECK(v(cce(Tensor({{0.f, 1.f}}), Tensor({{1.f, 3.f}}))) == Approx(-std::log(0.75)));
}

TEST_CASE("CategoricalCrossentropy label_smoothing") {
  // y = [0, 1, 0] with 0.3 smoothing over 3 classes -> [0.1, 0.8, 0.1].
  Tensor p({{0.2f, 0.5f, 0.3f}});
  double expected = -(0.1 * std::log(0.2) + 0.8 * std::log(0.5) + 0.1 * std::log(0.3));
  CHECK(v(losses::CategoricalCrossentropy({.label_smoothing = 0.3})(Tensor({{0.f, 1.f, 0.f}}), p)) ==
        Approx(expected).epsilon(1e-5));
  // from_logits with smoothing: logits = log p gives the same.
  Tensor logits({{std::log(0.2f), std::log(0.5f), std::log(0.3f)}});
  CHECK(v(losses::CategoricalCrossentropy({.from_logits = true, .label_smoothing = 0.3})(Tensor({{0.f, 1.f, 0.f}}),
                                                                                          logits)) ==
        Approx(expected).epsilon(1e-5));
}

TEST_CASE("CategoricalFocalCrossentropy docstring") {
  Tensor yt({{0.f, 1.f, 0.f}, {0.f, 0.f, 1.f}}), yp({{0.05f, 0.95f, 0.f}, {0.1f, 0.8f, 0.1f}});
  losses::CategoricalFocalCrossentropy cfce;
  CHECK(v(cfce(yt, yp)) == Approx(0.23315276).epsilon(1e-4));
  CHECK(v(cfce(yt, yp, Tensor({0.3f, 0.7f}))) == Approx(0.1632).epsilon(1e-3));
  CHECK(v(losses::CategoricalFocalCrossentropy({.reduction = "sum"})(yt, yp)) == Approx(0.46631).epsilon(1e-4));
  check_vec(losses::CategoricalFocalCrossentropy({.reduction = "none"})(yt, yp), {3.2058331e-05, 4.6627346e-01}, 1e-3);
  check_vec(losses::categorical_focal_crossentropy(yt, Tensor({{0.05f, 0.9f, 0.05f}, {0.1f, 0.85f, 0.05f}})),
            {2.63401289e-04, 6.75912094e-01}, 1e-3);
}

TEST_CASE("SparseCategoricalCrossentropy docstring") {
  Tensor yt({1, 2}), yp({{0.05f, 0.95f, 0.f}, {0.1f, 0.8f, 0.1f}});
  losses::SparseCategoricalCrossentropy scce;
  CHECK(v(scce(yt, yp)) == Approx(1.177).epsilon(1e-3));
  CHECK(v(scce(yt, yp, Tensor({0.3f, 0.7f}))) == Approx(0.814).epsilon(1e-3));
  CHECK(v(losses::SparseCategoricalCrossentropy({.reduction = "sum"})(yt, yp)) == Approx(2.354).epsilon(1e-3));
  check_vec(losses::SparseCategoricalCrossentropy({.reduction = "none"})(yt, yp), {0.0513, 2.303});
  // Float labels and (N, 1) labels give the same.
  CHECK(v(scce(Tensor({1.f, 2.f}), yp)) == Approx(1.177).epsilon(1e-3));
  CHECK(v(scce(Tensor(std::vector<int32_t>{1, 2}, Shape{2, 1}), yp)) == Approx(1.177).epsilon(1e-3));
  CHECK(v(scce(Tensor({int64_t{1}, int64_t{2}}), yp)) == Approx(1.177).epsilon(1e-3));
}

TEST_CASE("SparseCategoricalCrossentropy from_logits matches CategoricalCrossentropy") {
  Tensor logits({{2.f, -1.f, 0.5f}, {0.1f, 0.2f, 3.f}, {-2.f, 4.f, 1.f}});
  Tensor labels({0, 2, 1});
  Tensor onehot({{1.f, 0.f, 0.f}, {0.f, 0.f, 1.f}, {0.f, 1.f, 0.f}});
  double sparse = v(losses::SparseCategoricalCrossentropy({.from_logits = true})(labels, logits));
  double dense = v(losses::CategoricalCrossentropy({.from_logits = true})(onehot, logits));
  CHECK(sparse == Approx(dense).epsilon(1e-6));
  // The MNIST-guide shape: (N, 1) float labels, logits (N, 10).
  Tensor l2(std::vector<float>{3, 7}, Shape{2, 1});
  Tensor z = zeros({2, 10});
  CHECK(v(losses::SparseCategoricalCrossentropy({.from_logits = true})(l2, z)) == Approx(std::log(10.0)));
}

TEST_CASE("SparseCategoricalCrossentropy axis and ignore_class") {
  // Class axis first: logits (C, N).
  Tensor logits({{2.f, 0.1f}, {-1.f, 0.2f}, {0.5f, 3.f}});
  Tensor labels({0, 2});
  Tensor t_logits({{2.f, -1.f, 0.5f}, {0.1f, 0.2f, 3.f}});
  double last = v(losses::SparseCategoricalCrossentropy({.from_logits = true})(labels, t_logits));
  double first = v(losses::SparseCategoricalCrossentropy({.from_logits = true, .axis = 0})(labels, logits));
  CHECK(first == Approx(last).epsilon(1e-6));

  // ignore_class=-1: the ignored sample gives 0 and the mean is over the kept ones.
  Tensor yp({{0.05f, 0.95f, 0.f}, {0.1f, 0.8f, 0.1f}, {0.3f, 0.3f, 0.4f}});
  losses::SparseCategoricalCrossentropy ign({.ignore_class = -1});
  check_vec(losses::SparseCategoricalCrossentropy({.ignore_class = -1, .reduction = "none"})(Tensor({1, 2, -1}), yp),
            {0.0513, 2.303, 0.0});
  CHECK(v(ign(Tensor({1, 2, -1}), yp)) == Approx(1.177).epsilon(1e-3));
  CHECK(v(losses::SparseCategoricalCrossentropy({.ignore_class = -1, .reduction = "sum"})(Tensor({1, 2, -1}), yp)) ==
        Approx(2.354).epsilon(1e-3));
}

TEST_CASE("SparseCategoricalCrossentropy out-of-range label names the label") {
  Tensor yp({{0.2f, 0.8f}, {0.5f, 0.5f}});
  for (bool logits : {false, true}) {
    losses::SparseCategoricalCrossentropy scce({.from_logits = logits});
    CHECK_THROWS_AS(scce(Tensor({0, 5}), yp), ValueError);
    try {
      scce(Tensor({0, 5}), yp);
    } catch (const ValueError& e) {
      CHECK(std::string(e.what()).find('5') != std::string::npos);
    }
    CHECK_THROWS_AS(scce(Tensor({-1, 0}), yp), ValueError);
  }
}

}  // namespace test_losses_keras

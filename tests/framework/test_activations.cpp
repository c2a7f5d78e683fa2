// Activations: values against hand-computed float64 numbers (Python's math
// module), gradients against central differences, and lookup errors.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "kiln/nn/activations.h"
#include "kiln/ops/array_ops.h"
#include "kiln/core/error.h"
#include "kiln/autodiff/gradient_check.h"
#include "kiln/ops/math_ops.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_activations {

namespace k = kiln;
namespace act = kiln::activations;

namespace {

void check_close(const k::Tensor& got, const std::vector<double>& want, double tol, const std::string& what) {
  auto v = got.to_vector<double>();
  REQUIRE(v.size() == want.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    INFO(what << " element " << i << ": got " << v[i] << ", want " << want[i]);
    CHECK(std::abs(v[i] - want[i]) <= tol * (1.0 + std::abs(want[i])));
  }
}

// Points at which every activation is evaluated.
const std::vector<double> kPoints = {-2.0, -1.0, 0.0, 0.5, 1.0, 3.0};

k::Tensor points(k::DType dtype = k::float64) { return k::Tensor(kPoints, k::Shape{6}).cast(dtype); }

}  // namespace

TEST_CASE("activations: values at fixed points match float64 hand computations") {
  // Expected values from Python's math module (erf, expm1, tanh, log1p...).
  const std::map<std::string, std::vector<double>> expected = {
      {"linear", {-2.0, -1.0, 0.0, 0.5, 1.0, 3.0}},
      {"relu", {0.0, 0.0, 0.0, 0.5, 1.0, 3.0}},
      {"relu6", {0.0, 0.0, 0.0, 0.5, 1.0, 3.0}},
      {"leaky_relu", {-0.4, -0.2, 0.0, 0.5, 1.0, 3.0}},
      {"sigmoid", {0.11920292202211755, 0.2689414213699951, 0.5, 0.6224593312018546, 0.7310585786300049,
                   0.9525741268224334}},
      {"hard_sigmoid", {1.0 / 6, 1.0 / 3, 0.5, 0.5833333333333334, 2.0 / 3, 1.0}},
      {"tanh", {-0.9640275800758169, -0.7615941559557649, 0.0, 0.46211715726000974, 0.7615941559557649,
                0.9950547536867305}},
      {"softplus", {0.1269280110429725, 0.31326168751822286, 0.6931471805599453, 0.9740769841801067,
                    1.3132616875182228, 3.048587351573742}},
      {"softsign", {-2.0 / 3, -0.5, 0.0, 1.0 / 3, 0.5, 0.75}},
      {"elu", {-0.8646647167633873, -0.6321205588285577, 0.0, 0.5, 1.0, 3.0}},
      {"selu", {-1.5201664685956948, -1.1113307378125628, 0.0, 0.5253504936777402, 1.0507009873554805,
                3.1521029620664414}},
      {"gelu", {-0.04550026389635842, -0.15865525393145707, 0.0, 0.34573123063700656, 0.8413447460685429,
                2.99595030590511}},
      {"silu", {-0.2384058440442351, -0.2689414213699951, 0.0, 0.3112296656009273, 0.7310585786300049,
                2.8577223804673}},
      {"swish", {-0.2384058440442351, -0.2689414213699951, 0.0, 0.3112296656009273, 0.7310585786300049,
                 2.8577223804673}},
      {"mish", {-0.2525014826957089, -0.30340146137410895, 0.0, 0.3752452113048951, 0.8650983882673103,
                2.9865350049679575}},
      {"hard_silu", {-1.0 / 3, -1.0 / 3, 0.0, 0.2916666666666667, 2.0 / 3, 3.0}},
      {"hard_swish", {-1.0 / 3, -1.0 / 3, 0.0, 0.2916666666666667, 2.0 / 3, 3.0}},
      {"exponential", {0.1353352832366127, 0.36787944117144233, 1.0, 1.6487212707001282, 2.718281828459045,
                       20.085536923187668}},
  };
  for (const auto& [name, want] : expected) {
    k::Tensor y = act::get(name)(points());
    CHECK(y.dtype() == k::float64);
    check_close(y, want, 1e-12, name);
    // float32 keeps its dtype and agrees to single precision.
    k::Tensor y32 = act::get(name)(points(k::float32));
    CHECK(y32.dtype() == k::float32);
    check_close(y32, want, 1e-6, name + " (float32)");
  }
}

TEST_CASE("activations: spot values named in the Keras docs") {
  auto at = [](const std::string& name, double x) { return act::get(name)(k::Tensor(x, k::float64)).item<double>(); };
  CHECK(at("gelu", 1.0) == doctest::Approx(0.8413447460685429).epsilon(1e-14));
  CHECK(at("selu", -1.0) == doctest::Approx(-1.1113307378125628).epsilon(1e-14));
  CHECK(at("elu", -1.0) == doctest::Approx(-0.6321205588285577).epsilon(1e-14));
  CHECK(at("softsign", 1.0) == 0.5);
  CHECK(at("hard_sigmoid", 0.0) == 0.5);
  // hard_sigmoid saturates at +-3 (Keras 3: relu6(x + 3) / 6).
  CHECK(at("hard_sigmoid", -3.5) == 0.0);
  CHECK(at("hard_sigmoid", 3.5) == 1.0);
  CHECK(at("relu6", 7.0) == 6.0);
  // Keras relu docstring: relu([-10, -5, 0, 5, 10]) = [0, 0, 0, 5, 10].
  check_close(act::relu(k::Tensor({-10.0, -5.0, 0.0, 5.0, 10.0}, k::float64)), {0, 0, 0, 5, 10}, 0, "relu docstring");
}

TEST_CASE("activations: parameterised forms") {
  check_close(act::gelu(points(), /*approximate=*/true),
              {-0.04540230591222494, -0.15880800939172324, 0.0, 0.34571400982514394, 0.8411919906082768,
               2.996362607918227},
              1e-12, "gelu approximate");
  check_close(act::leaky_relu(points(), 0.5), {-1.0, -0.5, 0.0, 0.5, 1.0, 3.0}, 1e-15, "leaky_relu(0.5)");
  check_close(act::elu(points(), 2.0), {-1.7293294335267746, -1.2642411176571153, 0.0, 0.5, 1.0, 3.0}, 1e-12,
              "elu(alpha=2)");
  // elu must not overflow in the unused branch: the gradient at x = 1000 is 1.
  k::Tensor big(1000.0);
  CHECK(act::elu(big).item<double>() == 1000.0);
}

TEST_CASE("activations: softmax, log_softmax and crelu work along an axis") {
  // Golden figure from the TensorFlow guide (KERAS.md).
  k::Tensor s = act::get("softmax")(k::Tensor({{4.0f, 5.0f}, {10.0f, 1.0f}}));
  check_close(s, {0.26894143, 0.73105854, 0.99987662, 1.2339458e-04}, 1e-6, "softmax golden");
  check_close(act::softmax(k::Tensor({1.0, 2.0, 3.0}, k::float64)), {0.09003057317038046, 0.24472847105479767, 0.6652409557748219},
              1e-14, "softmax [1,2,3]");
  check_close(act::get("log_softmax")(k::Tensor({1.0, 2.0, 3.0}, k::float64)),
              {-2.40760596444438, -1.4076059644443801, -0.40760596444438013}, 1e-14, "log_softmax [1,2,3]");
  // axis 0 on a (2, 2) input normalises each column.
  check_close(act::softmax(k::Tensor({{0.0, 1.0}, {0.0, 3.0}}, k::float64), 0), {0.5, 0.11920292202211755, 0.5, 0.8807970779778823},
              1e-14, "softmax axis 0");
  k::Tensor c = act::get("crelu")(k::Tensor({{-1.0, 2.0}}, k::float64));
  CHECK(c.shape() == k::Shape{1, 4});
  check_close(c, {0.0, 2.0, 1.0, 0.0}, 0, "crelu");
}

TEST_CASE("activations: every registered activation has correct gradients") {
  // Points away from the kinks of relu (0), relu6 (0, 6) and hard_sigmoid (-3, 3).
  k::Tensor x({{-2.5, -1.3, -0.4, 0.3}, {0.7, 1.9, 2.6, 4.2}});
  for (const auto& name : act::names()) {
    auto f = act::get(name);
    auto r = k::check_gradients([&](const std::vector<k::Tensor>& in) { return f(in[0]); }, {x});
    INFO(name << ": " << r.report);
    CHECK(r.ok);
  }
  auto r = k::check_gradients([](const std::vector<k::Tensor>& in) { return act::gelu(in[0], true); }, {x});
  INFO("gelu approximate: " << r.report);
  CHECK(r.ok);
}

TEST_CASE("activations: names and lookup") {
  auto n = act::names();
  CHECK(std::is_sorted(n.begin(), n.end()));
  for (const char* want : {"linear", "relu", "sigmoid", "tanh", "softmax", "softplus", "softsign", "elu", "selu",
                           "gelu", "silu", "swish", "leaky_relu", "exponential", "hard_sigmoid", "log_softmax",
                           "relu6", "mish", "hard_silu", "hard_swish"}) {
    INFO(want);
    CHECK(std::find(n.begin(), n.end(), want) != n.end());
  }
  // Keras: activations.get(None) is linear.
  k::Tensor x({1.0, -2.0});
  CHECK(act::get("")(x).same_as(x));
}

TEST_CASE("activations: an unknown name throws NotFoundError listing close matches") {
  CHECK_THROWS_AS(act::get("rleu"), k::NotFoundError);
  try {
    act::get("rleu");
  } catch (const k::NotFoundError& e) {
    std::string msg = e.what();
    INFO(msg);
    CHECK(msg.find("Unknown activation: 'rleu'") != std::string::npos);
    CHECK(msg.find("'relu'") != std::string::npos);
    CHECK(msg.find("Did you mean") != std::string::npos);
  }
  CHECK_THROWS_AS(act::get("Gelu"), k::NotFoundError);
  try {
    act::get("Gelu");  // case differs: still suggested
  } catch (const k::NotFoundError& e) {
    CHECK(std::string(e.what()).find("Did you mean 'gelu'") != std::string::npos);
  }
}

}  // namespace test_activations

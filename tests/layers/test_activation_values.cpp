// Activations: values and gradients at points that include every kink, against
// numbers printed by Keras 3.15 (JAX backend): keras.activations.<name>(x) and
// jax.grad(sum(f(x))); and central differences away from the kinks.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "kiln/autodiff/gradient_check.h"
#include "kiln/core/error.h"
#include "kiln/autodiff/gradient_tape.h"
#include "kiln/nn/activations.h"
#include "kiln/ops/ops.h"
#include "test_util.h"

namespace k = kiln;
namespace A = kiln::activations;
using kiln_test::check_values;

namespace {

struct Expected {
  std::string name;
  std::vector<double> value, grad;
};

const std::vector<double> kPoints = {-3, -1, -0.5, 0, 0.5, 1, 3, 6.5};

// keras.activations.<name>(x) and jax.grad at kPoints (float32).
const std::vector<Expected> kKeras = {
    {"celu", {-0.950212955, -0.63212055, -0.393469334, 0, 0.5, 1, 3, 6.5}, {0.0497870445, 0.36787945, 0.606530666, 1, 1, 1, 1, 1}},
    {"hard_shrink", {-3, -1, 0, 0, 0, 1, 3, 6.5}, {1, 1, 0, 0, 0, 1, 1, 1}},
    {"hard_tanh", {-1, -1, -0.5, 0, 0.5, 1, 1, 1}, {0, 1, 1, 1, 1, 1, 0, 0}},
    {"log_sigmoid",
     {-3.04858732, -1.31326175, -0.974076986, -0.693147182, -0.474076986, -0.313261688, -0.048587352, -0.00150231016},
     {0.952574134, 0.731058538, 0.622459352, 0.5, 0.377540678, 0.268941402, 0.0474258736, 0.00150118186}},
    {"soft_shrink", {-2.5, -0.5, 0, 0, 0, 0.5, 2.5, 6}, {1, 1, 0, 0, 0, 1, 1, 1}},
    {"sparse_plus", {0, 0, 0.0625, 0.25, 0.5625, 1, 3, 6.5}, {0, 0, 0.25, 0.5, 0.75, 1, 1, 1}},
    {"squareplus",
     {0.302775621, 0.618034005, 0.780776381, 1, 1.28077638, 1.61803401, 3.30277562, 6.65036774},
     {0.0839748532, 0.276393205, 0.378732175, 0.5, 0.621267796, 0.723606825, 0.916025162, 0.977889478}},
    {"tanh_shrink",
     {-2.00494528, -0.238405824, -0.0378828347, 0, 0.0378828347, 0.238405824, 2.00494528, 5.50000477},
     {0.990133882, 0.580025673, 0.213552237, 0, 0.213552311, 0.580025673, 0.990133882, 0.99999094}},
    {"relu6", {0, 0, 0, 0, 0.5, 1, 3, 6}, {0, 0, 0, 0, 1, 1, 1, 0}},
    {"leaky_relu", {-0.6, -0.2, -0.1, 0, 0.5, 1, 3, 6.5}, {0.2, 0.2, 0.2, 1, 1, 1, 1, 1}},
    {"hard_sigmoid", {0, 0.333333343, 0.416666687, 0.5, 0.583333373, 0.666666687, 1, 1},
     {0, 0.166666672, 0.166666672, 0.166666672, 0.166666672, 0.166666672, 0, 0}},
    {"hard_silu", {0, -0.333333343, -0.208333343, 0, 0.291666687, 0.666666687, 3, 6.5},
     {0, 0.166666672, 0.333333343, 0.5, 0.666666687, 0.833333373, 1, 1}},
    {"elu", {-0.950212955, -0.63212055, -0.393469334, 0, 0.5, 1, 3, 6.5}, {0.0497870445, 0.36787945, 0.606530666, 1, 1, 1, 1, 1}},
    {"selu", {-1.67056882, -1.11133075, -0.691758215, 0, 0.525350511, 1.05070102, 3.15210295, 6.82955647},
     {0.0875305682, 0.64676863, 1.06634116, 1.75809932, 1.05070102, 1.05070102, 1.05070102, 1.05070102}},
    {"gelu", {-0.00404969603, -0.158655271, -0.154268771, 0, 0.345731229, 0.841344714, 2.99595022, 6.5},
     {-0.0119456518, -0.0833154768, 0.13250488, 0.5, 0.86749512, 1.08331549, 1.01194561, 1}},
    {"mish", {-0.145647451, -0.30340144, -0.220743775, 0, 0.375245243, 0.865098476, 2.98653555, 6.49997044},
     {-0.0933931321, 0.0592167526, 0.289510667, 0.600000024, 0.886424422, 1.04903615, 1.02110612, 1.00005424}},
    {"softsign", {-0.75, -0.5, -0.333333343, 0, 0.333333343, 0.5, 0.75, 0.866666675},
     {0.0625, 0.25, 0.444444478, 1, 0.444444478, 0.25, 0.0625, 0.0177777857}},
    {"silu", {-0.142277628, -0.268941432, -0.188770339, 0, 0.311229676, 0.731058598, 2.85772228, 6.490242},
     {-0.0881041065, 0.0723294914, 0.260038823, 0.5, 0.739961207, 0.927670538, 1.08810413, 1.00824201}},
};

k::Tensor grad_of(const A::Activation& f, const k::Tensor& x) {
  k::GradientTape tape;
  tape.watch(x);
  k::Tensor y = k::sum(f(x));
  return *tape.gradient(y, x);
}

// Absolute tolerance: Keras's float32 values near zero (tanh_shrink(0.5) = 0.0379) carry float32 rounding.
void check_close(const k::Tensor& t, const std::vector<double>& expected) {
  auto got = t.to_vector<double>();
  REQUIRE(got.size() == expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("x = ", kPoints[i]);
    CHECK(got[i] == doctest::Approx(expected[i]).epsilon(2e-6).scale(1.0));
  }
}

}  // namespace

TEST_CASE("activations: Keras 3 values and gradients at the kinks and around them") {
  const k::Tensor x(kPoints, k::Shape{8});
  for (const Expected& e : kKeras) {
    INFO("activation ", e.name);
    const A::Activation f = A::get(e.name);
    check_close(f(k::cast(x, k::float32)), e.value);
    check_close(grad_of(f, k::cast(x, k::float32)), e.grad);
  }
}

TEST_CASE("activations: sparse_sigmoid, threshold, glu and gelu's tanh form (Keras 3 values)") {
  const k::Tensor x = k::cast(k::Tensor(kPoints, k::Shape{8}), k::float32);
  check_values(A::get("sparse_sigmoid")(x), {0, 0, 0.25, 0.5, 0.75, 1, 1, 1});
  // Away from its kinks at -1 and 1 (where JAX's clip gives 0.25), sparse_sigmoid's slope is 0.5 inside, 0 outside.
  check_values(grad_of(A::get("sparse_sigmoid"), k::Tensor({-3.f, -0.5f, 0.f, 0.5f, 3.f})), {0, 0.5, 0.5, 0.5, 0});
  check_values(A::threshold(x, 0.5, -2.0), {-2, -2, -2, -2, -2, 1, 3, 6.5});
  check_values(A::glu(k::Tensor({{1.f, -2.f, 0.5f, 3.f}, {0.f, 1.f, 2.f, -1.f}})), {0.622459352, -1.90514827, 0, 0.268941432});
  CHECK_THROWS_AS(A::glu(k::ones({2, 3})), k::ValueError);
  check_values(A::gelu(x, true), {-0.00363734365, -0.158807963, -0.154285997, 0, 0.345714003, 0.841192007, 2.99636269, 6.5}, 1e-5);
}

TEST_CASE("activations: every name has a gradient matching central differences away from its kinks") {
  // Points at least 0.05 from every kink (0, +-0.5, +-1, +-3, 6) of the table's functions.
  const k::Tensor x({-4.2, -2.1, -0.8, -0.3, 0.2, 0.7, 1.6, 4.4, 5.3, 7.1}, k::float64);  // even: glu halves it
  for (const std::string& name : A::names()) {
    INFO("activation ", name);
    const A::Activation f = A::get(name);
    auto r = k::check_gradients([&](const std::vector<k::Tensor>& in) { return f(in[0]); }, {x});
    CHECK_MESSAGE(r.ok, r.report);
  }
  for (double alpha : {0.5, 2.0}) {
    auto r = k::check_gradients([&](const std::vector<k::Tensor>& in) { return A::celu(in[0], alpha); }, {x});
    CHECK_MESSAGE(r.ok, r.report);
  }
  auto r = k::check_gradients([](const std::vector<k::Tensor>& in) { return A::squareplus(in[0], 1.0); }, {x});
  CHECK_MESSAGE(r.ok, r.report);
}

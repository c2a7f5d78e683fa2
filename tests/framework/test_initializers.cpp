// Initializers (statistics, bounds, orthogonality, configs), regularizers and
// constraints (values by hand, configs, gradients).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kiln/nn/constraints.h"
#include "kiln/core/error.h"
#include "kiln/autodiff/gradient_check.h"
#include "kiln/nn/initializers.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/random.h"
#include "kiln/nn/regularizers.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_initializers {

namespace k = kiln;
namespace init = kiln::initializers;
using Json = nlohmann::json;

namespace {

struct Stats {
  double mean = 0, std = 0, min = 0, max = 0;
};

Stats stats(const k::Tensor& t) {
  auto v = t.to_vector<double>();
  Stats s;
  s.min = *std::min_element(v.begin(), v.end());
  s.max = *std::max_element(v.begin(), v.end());
  for (double x : v) s.mean += x;
  s.mean /= static_cast<double>(v.size());
  for (double x : v) s.std += (x - s.mean) * (x - s.mean);
  s.std = std::sqrt(s.std / static_cast<double>(v.size()));
  return s;
}

void check_values(const k::Tensor& got, const std::vector<double>& want, double tol = 1e-12) {
  auto v = got.to_vector<double>();
  REQUIRE(v.size() == want.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    INFO("element " << i << ": got " << v[i] << ", want " << want[i]);
    CHECK(std::abs(v[i] - want[i]) <= tol * (1.0 + std::abs(want[i])));
  }
}

// max |a - b| over all elements.
double max_diff(const k::Tensor& a, const k::Tensor& b) {
  auto x = a.to_vector<double>(), y = b.to_vector<double>();
  REQUIRE(x.size() == y.size());
  double m = 0;
  for (std::size_t i = 0; i < x.size(); ++i) m = std::max(m, std::abs(x[i] - y[i]));
  return m;
}

}  // namespace

// ------------------------------------------------------------- initializers

TEST_CASE("initializers: compute_fans follows Keras") {
  CHECK(init::compute_fans(k::Shape{}) == std::pair<double, double>{1, 1});
  CHECK(init::compute_fans(k::Shape{7}) == std::pair<double, double>{7, 7});
  CHECK(init::compute_fans(k::Shape{784, 64}) == std::pair<double, double>{784, 64});
  // Conv2D kernel (kh, kw, in, out): receptive field 9.
  CHECK(init::compute_fans(k::Shape{3, 3, 1, 32}) == std::pair<double, double>{9, 288});
  CHECK(init::compute_fans(k::Shape{2, 3, 4, 5, 6}) == std::pair<double, double>{5 * 24, 6 * 24});
}

TEST_CASE("initializers: constant initializers") {
  check_values((*init::Zeros())({2, 3}, k::float32), std::vector<double>(6, 0.0));
  check_values((*init::get("ones"))({4}, k::float64), std::vector<double>(4, 1.0));
  k::Tensor c = (*init::Constant(2.5))({2, 2}, k::float64);
  CHECK(c.dtype() == k::float64);
  check_values(c, {2.5, 2.5, 2.5, 2.5});
  check_values((*init::Identity(2.0))({2, 3}, k::float32), {2, 0, 0, 0, 2, 0});
  CHECK_THROWS_AS((*init::Identity())({2, 2, 2}, k::float32), k::ValueError);
}

TEST_CASE("initializers: random distributions have their documented statistics") {
  k::random::set_seed(1);
  const k::Shape big{400, 250};  // 100k samples: mean and std within ~1% of the truth

  Stats n = stats((*init::RandomNormal())(big, k::float32));
  CHECK(std::abs(n.mean) < 0.001);
  CHECK(n.std == doctest::Approx(0.05).epsilon(0.02));

  Stats n2 = stats((*init::RandomNormal(1.0, 2.0))(big, k::float64));
  CHECK(n2.mean == doctest::Approx(1.0).epsilon(0.02));
  CHECK(n2.std == doctest::Approx(2.0).epsilon(0.02));

  Stats u = stats((*init::RandomUniform())(big, k::float32));
  CHECK(u.min >= -0.05);
  CHECK(u.max <= 0.05);
  CHECK(std::abs(u.mean) < 0.001);
  CHECK(u.std == doctest::Approx(0.1 / std::sqrt(12.0)).epsilon(0.02));

  // Truncated at 2 sd: the std shrinks by 0.87962566103423978.
  Stats t = stats((*init::TruncatedNormal())(big, k::float32));
  CHECK(t.min >= -0.1);
  CHECK(t.max <= 0.1);
  CHECK(t.std == doctest::Approx(0.05 * 0.87962566103423978).epsilon(0.02));
}

TEST_CASE("initializers: variance scaling presets have std sqrt(scale / n)") {
  k::random::set_seed(2);
  const k::Shape shape{500, 200};  // fan_in 500, fan_out 200, fan_avg 350
  struct Case {
    const char* name;
    double want_std;
    bool uniform;
  };
  const Case cases[] = {
      {"glorot_uniform", std::sqrt(1.0 / 350), true}, {"glorot_normal", std::sqrt(1.0 / 350), false},
      {"he_uniform", std::sqrt(2.0 / 500), true},      {"he_normal", std::sqrt(2.0 / 500), false},
      {"lecun_uniform", std::sqrt(1.0 / 500), true},   {"lecun_normal", std::sqrt(1.0 / 500), false},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    Stats s = stats((*init::get(c.name))(shape, k::float32));
    CHECK(std::abs(s.mean) < 0.02 * c.want_std);
    CHECK(s.std == doctest::Approx(c.want_std).epsilon(0.02));
    // uniform: limit sqrt(3) sd; truncated normal: 2 sd of the untruncated stddev.
    double bound = c.uniform ? std::sqrt(3.0) * c.want_std : 2.0 * c.want_std / 0.87962566103423978;
    CHECK(s.max <= bound * (1 + 1e-6));
    CHECK(s.min >= -bound * (1 + 1e-6));
    CHECK(s.max > 0.9 * bound);
  }
  Stats fo = stats((*init::VarianceScaling(3.0, "fan_out", "untruncated_normal"))(shape, k::float64));
  CHECK(fo.std == doctest::Approx(std::sqrt(3.0 / 200)).epsilon(0.02));
  Stats fa = stats((*init::VarianceScaling(0.5, "fan_avg", "uniform"))(shape, k::float64));
  CHECK(fa.max <= std::sqrt(1.5 / 350));
  CHECK(fa.std == doctest::Approx(std::sqrt(0.5 / 350)).epsilon(0.02));
}

TEST_CASE("initializers: glorot_uniform respects its limit on a conv kernel") {
  // (3, 3, 1, 32): fan_in = 9, fan_out = 288, limit = sqrt(6 / 297).
  const double limit = std::sqrt(6.0 / (9.0 + 288.0));
  k::random::set_seed(3);
  k::Tensor w = (*init::GlorotUniform())({3, 3, 1, 32}, k::float32);
  CHECK(w.shape() == k::Shape{3, 3, 1, 32});
  Stats s = stats(w);
  CHECK(s.max <= limit);
  CHECK(s.min >= -limit);
  CHECK(s.max > 0.9 * limit);  // 288 draws: the range is actually used
  CHECK(s.min < -0.9 * limit);
}

TEST_CASE("initializers: seeds make values reproducible") {
  const k::Shape shape{20, 30};
  auto g = init::get("glorot_uniform");
  k::random::set_seed(42);
  k::Tensor a = (*g)(shape, k::float32);
  k::Tensor b = (*g)(shape, k::float32);
  k::random::set_seed(42);
  k::Tensor a2 = (*g)(shape, k::float32);
  CHECK(max_diff(a, a2) == 0.0);  // same global seed, same values
  CHECK(max_diff(a, b) > 0.0);    // unseeded: each call draws afresh

  auto seeded = init::RandomNormal(0.0, 1.0, 7);
  k::Tensor s1 = (*seeded)(shape, k::float64);
  k::Tensor s2 = (*seeded)(shape, k::float64);
  CHECK(max_diff(s1, s2) == 0.0);  // a seeded initializer repeats itself, as in Keras
  CHECK(max_diff(s1, (*init::RandomNormal(0.0, 1.0, 8))(shape, k::float64)) > 0.0);
  // The seed survives a config round trip.
  CHECK(max_diff(s1, (*init::from_config(init::serialize(*seeded)))(shape, k::float64)) == 0.0);
}

TEST_CASE("initializers: orthogonal gives orthonormal columns or rows") {
  k::random::set_seed(4);
  auto eye_diff = [](const k::Tensor& m, double scale) {
    return max_diff(m, k::eye(m.shape()[0], std::nullopt, k::float64) * scale);
  };
  // Tall: Q^T Q = I.
  k::Tensor q = (*init::Orthogonal())({50, 30}, k::float64);
  CHECK(q.shape() == k::Shape{50, 30});
  CHECK(eye_diff(k::matmul(q, q, true, false), 1.0) < 1e-12);
  // Square: both products are I.
  k::Tensor sq = (*init::get("orthogonal"))({20, 20}, k::float64);
  CHECK(eye_diff(k::matmul(sq, sq, true, false), 1.0) < 1e-12);
  CHECK(eye_diff(k::matmul(sq, sq, false, true), 1.0) < 1e-12);
  // Wide: orthonormal rows, Q Q^T = I.
  k::Tensor w = (*init::Orthogonal())({30, 50}, k::float64);
  CHECK(eye_diff(k::matmul(w, w, false, true), 1.0) < 1e-12);
  // Gain scales: Q^T Q = gain^2 I.
  k::Tensor g = (*init::Orthogonal(2.0))({40, 10}, k::float64);
  CHECK(eye_diff(k::matmul(g, g, true, false), 4.0) < 1e-12);
  // Conv kernel: flattened to (3*3*4, 8), columns orthonormal; float32 output.
  k::Tensor c = (*init::Orthogonal())({3, 3, 4, 8}, k::float32);
  CHECK(c.dtype() == k::float32);
  k::Tensor c2 = c.cast(k::float64).reshape({36, 8});
  CHECK(eye_diff(k::matmul(c2, c2, true, false), 1.0) < 1e-6);
  CHECK_THROWS_AS((*init::Orthogonal())({5}, k::float32), k::ValueError);
}

TEST_CASE("initializers: get accepts snake_case and class names") {
  const std::pair<const char*, const char*> names[] = {
      {"glorot_uniform", "GlorotUniform"}, {"glorot_normal", "GlorotNormal"}, {"he_uniform", "HeUniform"},
      {"he_normal", "HeNormal"},           {"lecun_uniform", "LecunUniform"}, {"lecun_normal", "LecunNormal"},
      {"zeros", "Zeros"},                  {"ones", "Ones"},                  {"random_normal", "RandomNormal"},
      {"random_uniform", "RandomUniform"}, {"truncated_normal", "TruncatedNormal"},
      {"orthogonal", "Orthogonal"},        {"identity", "Identity"},          {"variance_scaling", "VarianceScaling"},
      {"constant", "Constant"},
  };
  for (const auto& entry : names) {  // not a structured binding: INFO's lambda captures it (clang 14)
    const auto& snake = entry.first;
    const auto& cls = entry.second;
    INFO(snake);
    CHECK(init::get(snake)->class_name() == cls);
    CHECK(init::get(cls)->class_name() == cls);
  }
  CHECK(init::get("OrthogonalInitializer")->class_name() == "Orthogonal");
  CHECK(init::get("uniform")->class_name() == "RandomUniform");
  CHECK_THROWS_AS(init::get("glorot_unifrom"), k::NotFoundError);
  try {
    init::get("glorot_unifrom");
  } catch (const k::NotFoundError& e) {
    std::string msg = e.what();
    INFO(msg);
    CHECK(msg.find("Unknown initializer: 'glorot_unifrom'") != std::string::npos);
    CHECK(msg.find("'glorot_uniform'") != std::string::npos);
  }
}

TEST_CASE("initializers: configs use Keras keys and round-trip") {
  CHECK(init::serialize(*init::VarianceScaling()) ==
        Json::parse(R"({"module": "keras.initializers", "class_name": "VarianceScaling",
                        "config": {"scale": 1.0, "mode": "fan_in", "distribution": "truncated_normal", "seed": null},
                        "registered_name": null})"));
  CHECK(init::RandomNormal()->get_config() == Json::parse(R"({"mean": 0.0, "stddev": 0.05, "seed": null})"));
  CHECK(init::RandomUniform()->get_config() == Json::parse(R"({"minval": -0.05, "maxval": 0.05, "seed": null})"));
  CHECK(init::TruncatedNormal(0.0, 0.05, 3)->get_config() == Json::parse(R"({"mean": 0.0, "stddev": 0.05, "seed": 3})"));
  CHECK(init::Constant(3.0)->get_config() == Json::parse(R"({"value": 3.0})"));
  CHECK(init::Orthogonal()->get_config() == Json::parse(R"({"gain": 1.0, "seed": null})"));
  CHECK(init::Identity()->get_config() == Json::parse(R"({"gain": 1.0})"));
  CHECK(init::GlorotUniform()->get_config() == Json::parse(R"({"seed": null})"));
  CHECK(init::Zeros()->get_config() == Json::object());

  std::vector<init::InitializerPtr> all = {
      init::Zeros(), init::Ones(), init::Constant(0.5), init::RandomNormal(0.1, 0.2, 5),
      init::RandomUniform(-1, 1), init::TruncatedNormal(0, 0.3), init::VarianceScaling(2.0, "fan_avg", "uniform", 9),
      init::GlorotUniform(), init::GlorotNormal(1), init::HeUniform(), init::HeNormal(), init::LecunUniform(),
      init::LecunNormal(), init::Orthogonal(1.5, 2), init::Identity(0.5)};
  for (const auto& i : all) {
    INFO(i->class_name());
    Json c = init::serialize(*i);
    CHECK(c["module"] == "keras.initializers");
    CHECK(c["registered_name"].is_null());
    CHECK(init::serialize(*init::from_config(c)) == c);
    // tf.keras 2 form without module / registered_name.
    CHECK(init::serialize(*init::from_config({{"class_name", c["class_name"]}, {"config", c["config"]}})) == c);
  }
  // The legacy distribution name "normal" means truncated_normal, as in Keras.
  CHECK(init::VarianceScaling(1.0, "fan_in", "normal")->get_config()["distribution"] == "truncated_normal");
  // A JSON string works with get().
  CHECK(init::get(R"({"class_name": "Constant", "config": {"value": 4}})")->get_config()["value"] == 4.0);
}

TEST_CASE("initializers: bad arguments are rejected with ValueError") {
  CHECK_THROWS_AS(init::VarianceScaling(0.0), k::ValueError);
  CHECK_THROWS_AS(init::VarianceScaling(1.0, "fan_sideways"), k::ValueError);
  CHECK_THROWS_AS(init::VarianceScaling(1.0, "fan_in", "cauchy"), k::ValueError);
  CHECK_THROWS_AS(init::from_config(Json::parse(R"({"class_name": "RandomNormal", "config": {"stdev": 1}})")),
                  k::ValueError);
  CHECK_THROWS_AS(init::from_config(Json::parse(R"({"config": {}})")), k::ValueError);
  CHECK_THROWS_AS(init::from_config(Json::parse(R"({"class_name": "Glorot"})")), k::NotFoundError);
}

// ------------------------------------------------------------- regularizers

TEST_CASE("regularizers: penalties computed by hand") {
  namespace reg = kiln::regularizers;
  k::Tensor w({{1.0, -2.0}, {3.0, 0.5}}, k::float64);  // sum|w| = 6.5, sum w^2 = 14.25
  CHECK((*reg::L2(0.02))(w).item<double>() == doctest::Approx(0.285).epsilon(1e-14));
  CHECK((*reg::L1(0.01))(w).item<double>() == doctest::Approx(0.065).epsilon(1e-14));
  CHECK((*reg::L1L2(0.01, 0.02))(w).item<double>() == doctest::Approx(0.35).epsilon(1e-14));
  CHECK((*reg::L1L2())(w).item<double>() == 0.0);
  // Keras docstring: L2(2.)(ones((5, 5))) = 50.
  k::Tensor p = (*reg::L2(2.0))(k::ones({5, 5}));
  CHECK(p.rank() == 0);
  CHECK(p.dtype() == k::float32);
  CHECK(p.item<float>() == 50.0f);
  // Defaults: L1(0.01), L2(0.01), "l1_l2" = L1L2(0.01, 0.01).
  CHECK((*reg::get("l2"))(w).item<double>() == doctest::Approx(0.1425).epsilon(1e-14));
  CHECK((*reg::get("l1"))(w).item<double>() == doctest::Approx(0.065).epsilon(1e-14));
  CHECK((*reg::get("l1_l2"))(w).item<double>() == doctest::Approx(0.2075).epsilon(1e-14));
  CHECK_THROWS_AS(reg::L2(-1.0), k::ValueError);
}

TEST_CASE("regularizers: gradients, configs and lookup") {
  namespace reg = kiln::regularizers;
  auto r = reg::L1L2(0.3, 0.7);
  auto g = k::check_gradients([&](const std::vector<k::Tensor>& in) { return (*r)(in[0]); },
                              {k::Tensor({{1.5, -2.0}, {0.25, -0.75}})});
  INFO(g.report);
  CHECK(g.ok);

  CHECK(reg::L1()->get_config() == Json::parse(R"({"l1": 0.01})"));
  CHECK(reg::L2(0.02)->get_config() == Json::parse(R"({"l2": 0.02})"));
  CHECK(reg::L1L2()->get_config() == Json::parse(R"({"l1": 0.0, "l2": 0.0})"));
  CHECK(reg::get("l1_l2")->get_config() == Json::parse(R"({"l1": 0.01, "l2": 0.01})"));
  CHECK(reg::serialize(*reg::L2(0.02)) ==
        Json::parse(R"({"module": "keras.regularizers", "class_name": "L2", "config": {"l2": 0.02},
                        "registered_name": null})"));
  for (const auto& x : {reg::L1(0.5), reg::L2(0.25), reg::L1L2(0.1, 0.2)}) {
    Json c = reg::serialize(*x);
    CHECK(reg::serialize(*reg::from_config(c)) == c);
  }
  CHECK(reg::from_config(Json::parse(R"({"class_name": "L1L2", "config": {"l2": 0.5}})"))->get_config() ==
        Json::parse(R"({"l1": 0.0, "l2": 0.5})"));
  CHECK_THROWS_AS(reg::get("l3"), k::NotFoundError);
  try {
    reg::get("l3");
  } catch (const k::NotFoundError& e) {
    CHECK(std::string(e.what()).find("Unknown regularizer: 'l3'") != std::string::npos);
  }
}

// ------------------------------------------------------------- constraints

TEST_CASE("constraints: values computed by hand") {
  namespace con = kiln::constraints;
  const double eps = 1e-7;
  k::Tensor w({{3.0, 0.0}, {4.0, 1.0}}, k::float64);  // column norms (axis 0): 5, 1; row norms: 3, sqrt(17)
  // MaxNorm(2): column 0 is scaled to norm 2, column 1 (norm 1) is kept.
  check_values((*con::MaxNorm(2.0))(w), {3 * 2 / (5 + eps), 0.0, 4 * 2 / (5 + eps), 1 / (1 + eps)});
  check_values((*con::UnitNorm())(w), {3 / (5 + eps), 0.0, 4 / (5 + eps), 1 / (1 + eps)});
  const double r1 = std::sqrt(17.0);
  check_values((*con::UnitNorm(1))(w), {3 / (3 + eps), 0.0, 4 / (r1 + eps), 1 / (r1 + eps)});
  // Default MinMaxNorm(0, 1, rate=1): norms clipped into [0, 1].
  check_values((*con::MinMaxNorm())(w), {3 / (5 + eps), 0.0, 4 / (5 + eps), 1 / (1 + eps)});
  // rate 0.5: desired = 0.5 * clip(norm, 0.5, 2) + 0.5 * norm -> 3.5 and 1.
  check_values((*con::MinMaxNorm(0.5, 2.0, 0.5))(w), {3 * 3.5 / (5 + eps), 0.0, 4 * 3.5 / (5 + eps), 1 / (1 + eps)});
  // Several axes: one norm over the whole matrix, sqrt(26).
  const double all = std::sqrt(26.0);
  check_values((*con::MaxNorm(2.0, {0, 1}))(w), {3 * 2 / (all + eps), 0.0, 4 * 2 / (all + eps), 2 / (all + eps)});
  check_values((*con::NonNeg())(k::Tensor({{-1.0, 2.0}, {0.5, -3.0}})), {0.0, 2.0, 0.5, 0.0});
  check_values((*con::get("non_neg"))(k::Tensor({-1.0, 1.0})), {0.0, 1.0});  // Keras docstring
}

TEST_CASE("constraints: configs and lookup") {
  namespace con = kiln::constraints;
  CHECK(con::MaxNorm()->get_config() == Json::parse(R"({"max_value": 2.0, "axis": 0})"));
  CHECK(con::MaxNorm(3.0, {0, 1, 2})->get_config() == Json::parse(R"({"max_value": 3.0, "axis": [0, 1, 2]})"));
  CHECK(con::MinMaxNorm()->get_config() ==
        Json::parse(R"({"min_value": 0.0, "max_value": 1.0, "rate": 1.0, "axis": 0})"));
  CHECK(con::UnitNorm()->get_config() == Json::parse(R"({"axis": 0})"));
  CHECK(con::NonNeg()->get_config() == Json::object());
  CHECK(con::serialize(*con::NonNeg()) ==
        Json::parse(R"({"module": "keras.constraints", "class_name": "NonNeg", "config": {}, "registered_name": null})"));
  for (const auto& c : {con::MaxNorm(1.5, 1), con::MaxNorm(2.0, {0, 1, 2}), con::MinMaxNorm(0.1, 0.9, 0.5, 1),
                        con::NonNeg(), con::UnitNorm(-1)}) {
    Json j = con::serialize(*c);
    INFO(j.dump());
    CHECK(con::serialize(*con::from_config(j)) == j);
  }
  CHECK(con::get("max_norm")->class_name() == "MaxNorm");
  CHECK(con::get("MinMaxNorm")->class_name() == "MinMaxNorm");
  CHECK(con::get("unit_norm")->class_name() == "UnitNorm");
  CHECK(con::get("non_neg")->class_name() == "NonNeg");
  CHECK_THROWS_AS(con::get("max_nrom"), k::NotFoundError);
  try {
    con::get("max_nrom");
  } catch (const k::NotFoundError& e) {
    CHECK(std::string(e.what()).find("'max_norm'") != std::string::npos);
  }
}

TEST_CASE("VarianceScaling fan axes (Keras 3.15's input_axes / output_axes): fans, config round trip") {
  namespace I = kiln::initializers;
  const kiln::Shape shape{2, 3, 4, 5};
  CHECK(I::compute_fans(shape, {.input_axes = std::vector<int>{0, 1}, .output_axes = std::vector<int>{-1}}) ==
        std::pair<double, double>{6.0, 5.0});
  CHECK(I::compute_fans(shape, {.input_axes = std::vector<int>{0}}) == I::compute_fans(shape));  // both or neither
  CHECK_THROWS_AS(I::compute_fans(shape, {.input_axes = std::vector<int>{4}, .output_axes = std::vector<int>{0}}),
                  kiln::IndexError);
  // Keras 3.15's default Dense kernel initializer config reads, and writes back only when the axes are set.
  auto glorot = I::from_config({{"class_name", "GlorotUniform"},
                                {"config", {{"seed", nullptr}, {"input_axes", nullptr}, {"output_axes", nullptr}}}});
  CHECK(I::serialize(*glorot)["config"] == kiln::Config{{"seed", nullptr}});
  auto he = I::from_config({{"class_name", "HeNormal"},
                            {"config", {{"seed", 1}, {"input_axes", {0, 1}}, {"output_axes", {3}}}}});
  CHECK(I::serialize(*he)["config"]["input_axes"] == kiln::Config{0, 1});
  // stddev = sqrt(2 / fan_in) / 0.8796 with fan_in = 6 (axes 0 and 1), not 2·3·4 = 24.
  kiln::Tensor w = (*he)(kiln::Shape{2, 3, 4, 500}, kiln::DType::float64);
  double sum = 0, sq = 0;
  for (double v : w.to_vector<double>()) sum += v, sq += v * v;
  const double n = static_cast<double>(w.size()), sd = std::sqrt(sq / n - (sum / n) * (sum / n));
  CHECK(sd == doctest::Approx(std::sqrt(2.0 / 6.0)).epsilon(0.03));
}

}  // namespace test_initializers

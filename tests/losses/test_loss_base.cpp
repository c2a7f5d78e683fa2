// Loss base: reductions, sample-weight shapes, registry, configs, from_function
// and float64 gradient checks of every loss with respect to y_pred.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>

#include "kiln/core/error.h"
#include "kiln/autodiff/gradient_check.h"
#include "kiln/autodiff/gradient_tape.h"
#include "kiln/losses/losses.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/random.h"
#include "kiln/ops/reduce_ops.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_loss_base {

using namespace kiln;
using doctest::Approx;

namespace {
double v(const Tensor& t) { return t.item<double>(); }
}  // namespace

TEST_CASE("reductions and sample weights") {
  Tensor values({1.f, 2.f, 3.f, 4.f});
  CHECK(v(reduce_weighted_loss(values, Tensor(), "sum_over_batch_size")) == Approx(2.5));
  CHECK(v(reduce_weighted_loss(values, Tensor(), "mean")) == Approx(2.5));
  CHECK(v(reduce_weighted_loss(values, Tensor(), "sum")) == Approx(10.0));
  CHECK(reduce_weighted_loss(values, Tensor(), "none").shape() == Shape{4});
  Tensor sw({1.f, 0.f, 1.f, 2.f});
  // Keras 3: weighted sum divided by the number of elements, not the weights.
  CHECK(v(reduce_weighted_loss(values, sw, "sum_over_batch_size")) == Approx(12.0 / 4));
  CHECK(v(reduce_weighted_loss(values, sw, "sum")) == Approx(12.0));
  CHECK(v(reduce_weighted_loss(values, sw, "mean_with_sample_weight")) == Approx(12.0 / 4));
  CHECK(v(reduce_weighted_loss(values, Tensor({0.f, 0.f, 0.f, 0.f}), "mean_with_sample_weight")) == 0.0);
  auto none = reduce_weighted_loss(values, sw, "none").to_vector<double>();
  CHECK(none == std::vector<double>{1, 0, 3, 8});
  // (N, 1) weights are squeezed to (N,); a scalar weight broadcasts.
  CHECK(v(reduce_weighted_loss(values, Tensor(std::vector<float>{1, 0, 1, 2}, Shape{4, 1}), "sum")) == Approx(12.0));
  CHECK(v(reduce_weighted_loss(values, Tensor(2.f), "sum_over_batch_size")) == Approx(5.0));
  CHECK(v(reduce_weighted_loss(values, Tensor(2.f), "mean_with_sample_weight")) == Approx(2.5));
  // Scalar losses are returned unchanged.
  CHECK(v(reduce_weighted_loss(Tensor(3.f), Tensor(), "sum_over_batch_size")) == Approx(3.0));
  CHECK_THROWS_AS(reduce_weighted_loss(values, Tensor(), "average"), ValueError);
  CHECK_THROWS_AS(losses::MeanSquaredError({.reduction = "avg"}), ValueError);
  CHECK(standardize_reduction("") == "none");
  CHECK(standardize_reduction("auto") == "sum_over_batch_size");
}

TEST_CASE("mean_with_sample_weight and (N, 1) weights on a loss") {
  Tensor yt({{0.f, 1.f}, {0.f, 0.f}}), yp({{1.f, 1.f}, {1.f, 0.f}});
  // per-sample [0.5, 0.5], weights [0.7, 0.3]: sum 0.5, / sum(w) = 0.5
  CHECK(v(losses::MeanSquaredError({.reduction = "mean_with_sample_weight"})(yt, yp, Tensor({0.7f, 0.3f}))) ==
        Approx(0.5));
  CHECK(v(losses::MeanSquaredError()(yt, yp, Tensor(std::vector<float>{0.7f, 0.3f}, Shape{2, 1}))) == Approx(0.25));
  // Per-timestep weights on (N, T) losses from (N, T, D) inputs.
  Tensor yt3 = zeros({2, 3, 2}), yp3 = ones({2, 3, 2});
  Tensor w({{1.f, 0.f, 0.f}, {0.f, 0.f, 1.f}});
  CHECK(v(losses::MeanSquaredError({.reduction = "sum"})(yt3, yp3, w)) == Approx(2.0));
}

TEST_CASE("squeeze_or_expand_to_same_rank") {
  auto [a, b] = squeeze_or_expand_to_same_rank(zeros({4, 1}), zeros({4}));
  CHECK(a.shape() == Shape{4, 1});
  CHECK(b.shape() == Shape{4, 1});
  auto [c, d] = squeeze_or_expand_to_same_rank(zeros({4, 3, 1}), zeros({4, 3}));
  CHECK(c.shape() == Shape{4, 3});
  CHECK(d.shape() == Shape{4, 3});
  auto [e, f] = squeeze_or_expand_to_same_rank(zeros({4}), zeros({4, 1}), false);
  CHECK(e.shape() == Shape{4});
  CHECK(f.shape() == Shape{4});
  // y_true (N,) against y_pred (N, 1): MSE per sample, not an (N, N) broadcast.
  CHECK(losses::MeanSquaredError({.reduction = "none"})(Tensor({1.f, 2.f}), Tensor(std::vector<float>{1, 4}, Shape{2, 1})).shape() ==
        Shape{2});
}

TEST_CASE("losses::get by Keras names and aliases") {
  losses::register_builtins();
  losses::register_builtins();  // idempotent
  struct Case {
    const char* name;
    const char* cls;
  };
  for (auto c : std::vector<Case>{{"mse", "MeanSquaredError"},
                                  {"MSE", "MeanSquaredError"},
                                  {"mean_squared_error", "MeanSquaredError"},
                                  {"MeanSquaredError", "MeanSquaredError"},
                                  {"mae", "MeanAbsoluteError"},
                                  {"mape", "MeanAbsolutePercentageError"},
                                  {"msle", "MeanSquaredLogarithmicError"},
                                  {"sparse_categorical_crossentropy", "SparseCategoricalCrossentropy"},
                                  {"categorical_crossentropy", "CategoricalCrossentropy"},
                                  {"binary_crossentropy", "BinaryCrossentropy"},
                                  {"bce", "BinaryCrossentropy"},
                                  {"huber", "Huber"},
                                  {"log_cosh", "LogCosh"},
                                  {"logcosh", "LogCosh"},
                                  {"kl_divergence", "KLDivergence"},
                                  {"kld", "KLDivergence"},
                                  {"poisson", "Poisson"},
                                  {"hinge", "Hinge"},
                                  {"squared_hinge", "SquaredHinge"},
                                  {"categorical_hinge", "CategoricalHinge"},
                                  {"cosine_similarity", "CosineSimilarity"},
                                  {"binary_focal_crossentropy", "BinaryFocalCrossentropy"},
                                  {"categorical_focal_crossentropy", "CategoricalFocalCrossentropy"}}) {
    CAPTURE(c.name);
    LossPtr l = losses::get(c.name);
    REQUIRE(l);
    CHECK(l->class_name() == c.cls);
    CHECK(l->reduction() == "sum_over_batch_size");
  }
  Tensor yt({1, 2}), yp({{0.05f, 0.95f, 0.f}, {0.1f, 0.8f, 0.1f}});
  CHECK(v((*losses::get("sparse_categorical_crossentropy"))(yt, yp)) == Approx(1.177).epsilon(1e-3));
}

TEST_CASE("unknown loss names list close matches") {
  losses::register_builtins();
  CHECK_THROWS_AS(losses::get("mean_sqared_error"), NotFoundError);
  try {
    losses::get("mean_sqared_error");
    FAIL("expected an error");
  } catch (const NotFoundError& e) {
    std::string msg = e.what();
    CHECK(msg.find("mean_sqared_error") != std::string::npos);
    CHECK(msg.find("mean_squared_error") != std::string::npos);
  }
  try {
    losses::get("sparse_categorical_crossentropyy");
    FAIL("expected an error");
  } catch (const NotFoundError& e) {
    CHECK(std::string(e.what()).find("'sparse_categorical_crossentropy'") != std::string::npos);
  }
}

TEST_CASE("get_config keys and from_config round trip") {
  losses::register_builtins();
  losses::SparseCategoricalCrossentropy scce({.from_logits = true, .ignore_class = 255, .name = "my_loss"});
  Config c = scce.get_config();
  CHECK(c["name"] == "my_loss");
  CHECK(c["reduction"] == "sum_over_batch_size");
  CHECK(c["from_logits"] == true);
  CHECK(c["ignore_class"] == 255);
  Config ser = losses::serialize(scce);
  CHECK(ser["class_name"] == "SparseCategoricalCrossentropy");
  CHECK(ser["module"] == "keras.losses");
  LossPtr back = losses::from_config(ser);
  CHECK(back->class_name() == "SparseCategoricalCrossentropy");
  CHECK(back->get_config() == c);

  losses::Huber h({.delta = 2.5, .reduction = "sum"});
  CHECK(h.get_config()["delta"] == 2.5);
  CHECK(losses::from_config(losses::serialize(h))->get_config() == h.get_config());

  losses::BinaryCrossentropy b({.from_logits = true, .label_smoothing = 0.2});
  Config bc = b.get_config();
  CHECK(bc["label_smoothing"] == 0.2);
  CHECK(bc["axis"] == -1);
  CHECK(losses::from_config(losses::serialize(b))->get_config() == bc);

  losses::BinaryFocalCrossentropy f({.apply_class_balancing = true, .gamma = 3});
  Config fc = f.get_config();
  for (auto k : {"from_logits", "label_smoothing", "axis", "apply_class_balancing", "alpha", "gamma"})
    CHECK(fc.contains(k));
  CHECK(losses::from_config(losses::serialize(f))->get_config() == fc);

  losses::CategoricalFocalCrossentropy cf({.alpha = 0.5});
  CHECK(losses::from_config(losses::serialize(cf))->get_config() == cf.get_config());
  losses::CategoricalCrossentropy cc({.label_smoothing = 0.1, .axis = 1});
  CHECK(losses::from_config(losses::serialize(cc))->get_config() == cc.get_config());
  losses::CosineSimilarity cs({.axis = 0});
  CHECK(losses::from_config(losses::serialize(cs))->get_config()["axis"] == 0);

  // reduction "none" is written as null, as Keras writes None, and read back.
  losses::MeanSquaredError none({.reduction = "none"});
  CHECK(none.get_config()["reduction"].is_null());
  CHECK(losses::from_config(losses::serialize(none))->reduction() == "none");
  CHECK(losses::from_config(Config("mae"))->class_name() == "MeanAbsoluteError");
  CHECK_THROWS_AS(losses::from_config(Config::parse("{\"config\": {}}")), ValueError);
}

TEST_CASE("from_function wraps a callable") {
  LossPtr l = losses::from_function([](const Tensor& t, const Tensor& p) { return mean(abs(t - p) * 3.0, -1); },
                                    "triple_mae");
  CHECK(l->name() == "triple_mae");
  CHECK(v((*l)(Tensor({{0.f, 1.f}, {0.f, 0.f}}), Tensor({{1.f, 1.f}, {1.f, 0.f}}))) == Approx(1.5));
  // LossArg / LossConfig accept functions and objects.
  LossArg arg([](const Tensor& t, const Tensor& p) { return mean(square(t - p), -1); });
  CHECK(arg.resolve()->class_name() == "LossFunctionWrapper");
  LossArg obj(losses::Huber({.delta = 2.0}));
  CHECK(obj.resolve()->class_name() == "Huber");
  LossArg byname("mse");
  CHECK(byname.resolve()->class_name() == "MeanSquaredError");
}

TEST_CASE("float64 stays float64 and gradients reach y_pred") {
  Tensor yt = Tensor({{0.0, 1.0}, {1.0, 0.0}}, DType::float64);
  Tensor yp = Tensor({{0.3, 0.7}, {0.6, 0.4}}, DType::float64);
  Tensor l = losses::CategoricalCrossentropy()(yt, yp);
  CHECK(l.dtype() == DType::float64);
  Variable w(yp);
  GradientTape tape;
  Tensor loss = losses::MeanSquaredError()(yt, w.value());
  auto g = tape.gradient(loss, w);
  REQUIRE(g.has_value());
  // d/dp mean over 4 elements of (p - t)^2 = 2 (p - t) / 4
  auto gv = g->to_vector<double>();
  CHECK(gv[0] == Approx(0.15));
  CHECK(gv[1] == Approx(-0.15));
}

namespace {
// Checks d loss / d y_pred against central differences in float64.
void check_loss_gradient(const std::string& what, const Loss& loss, const Tensor& y_true, const Tensor& y_pred,
                         const Tensor& sample_weight = Tensor()) {
  Tensor yt = is_floating(y_true.dtype()) ? y_true.cast(DType::float64) : y_true;
  Tensor sw = sample_weight.defined() ? sample_weight.cast(DType::float64) : Tensor();
  auto r = check_gradients([&](const std::vector<Tensor>& in) { return loss(yt, in[0], sw); },
                           {y_pred.cast(DType::float64)}, {.epsilon = 1e-6, .atol = 1e-6, .rtol = 1e-4});
  CAPTURE(what);
  CAPTURE(r.report);
  CHECK(r.ok);
}
}  // namespace

TEST_CASE("gradient check of every loss with respect to y_pred") {
  // Points chosen away from kinks (|error| == delta, margins == 1, clip edges).
  Tensor bin({{0.f, 1.f, 1.f}, {1.f, 0.f, 0.f}});
  Tensor prob({{0.2f, 0.7f, 0.6f}, {0.55f, 0.3f, 0.15f}});
  Tensor logits({{-1.2f, 0.7f, 2.1f}, {0.4f, -0.3f, 1.5f}});
  Tensor onehot({{0.f, 1.f, 0.f}, {0.f, 0.f, 1.f}});
  Tensor reg_t({{1.5f, -0.5f, 2.0f}, {0.3f, 0.8f, -1.0f}});
  Tensor reg_p({{0.2f, 0.4f, 3.7f}, {1.1f, 0.2f, -0.2f}});
  Tensor pos_t({{1.5f, 0.5f, 2.0f}, {0.3f, 0.8f, 1.0f}});
  Tensor pos_p({{0.2f, 0.4f, 3.7f}, {1.1f, 0.2f, 0.6f}});
  Tensor sw({0.3f, 1.7f});

  check_loss_gradient("mse", losses::MeanSquaredError(), reg_t, reg_p, sw);
  check_loss_gradient("mae", losses::MeanAbsoluteError(), reg_t, reg_p);
  check_loss_gradient("mape", losses::MeanAbsolutePercentageError(), reg_t, reg_p);
  check_loss_gradient("msle", losses::MeanSquaredLogarithmicError(), pos_t, pos_p);
  check_loss_gradient("huber", losses::Huber({.delta = 1.0}), reg_t, reg_p, sw);
  check_loss_gradient("log_cosh", losses::LogCosh(), reg_t, reg_p);
  check_loss_gradient("kld", losses::KLDivergence(), prob, Tensor({{0.3f, 0.5f, 0.2f}, {0.1f, 0.6f, 0.3f}}));
  check_loss_gradient("poisson", losses::Poisson(), pos_t, pos_p);
  check_loss_gradient("hinge", losses::Hinge(), bin, logits);
  check_loss_gradient("squared_hinge", losses::SquaredHinge(), bin, logits);
  check_loss_gradient("categorical_hinge", losses::CategoricalHinge(), onehot, logits);
  check_loss_gradient("cosine", losses::CosineSimilarity(), reg_t, reg_p);
  check_loss_gradient("bce", losses::BinaryCrossentropy(), bin, prob, sw);
  check_loss_gradient("bce logits", losses::BinaryCrossentropy({.from_logits = true}), bin, logits);
  check_loss_gradient("bce smoothing", losses::BinaryCrossentropy({.from_logits = true, .label_smoothing = 0.2}), bin,
                      logits);
  check_loss_gradient("bfce", losses::BinaryFocalCrossentropy(), bin, prob);
  check_loss_gradient("bfce logits balanced",
                      losses::BinaryFocalCrossentropy({.apply_class_balancing = true, .gamma = 3, .from_logits = true}),
                      bin, logits);
  check_loss_gradient("cce", losses::CategoricalCrossentropy(), onehot, prob, sw);
  check_loss_gradient("cce logits", losses::CategoricalCrossentropy({.from_logits = true}), onehot, logits);
  check_loss_gradient("cce smoothing", losses::CategoricalCrossentropy({.from_logits = true, .label_smoothing = 0.1}),
                      onehot, logits);
  check_loss_gradient("cfce", losses::CategoricalFocalCrossentropy(), onehot, prob);
  check_loss_gradient("cfce logits", losses::CategoricalFocalCrossentropy({.from_logits = true}), onehot, logits);
  check_loss_gradient("scce", losses::SparseCategoricalCrossentropy(), Tensor({1, 2}), prob, sw);
  check_loss_gradient("scce logits", losses::SparseCategoricalCrossentropy({.from_logits = true}), Tensor({1, 2}),
                      logits);
  check_loss_gradient("scce logits axis 0", losses::SparseCategoricalCrossentropy({.from_logits = true, .axis = 0}),
                      Tensor({1, 0, 1}), logits);
  check_loss_gradient("scce ignore", losses::SparseCategoricalCrossentropy({.from_logits = true, .ignore_class = 0}),
                      Tensor({1, 0}), logits);
  check_loss_gradient("mean_with_sample_weight", losses::MeanSquaredError({.reduction = "mean_with_sample_weight"}),
                      reg_t, reg_p, sw);
}

}  // namespace test_loss_base

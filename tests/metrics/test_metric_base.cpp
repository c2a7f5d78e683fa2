// Metric base: state variables, reset, registry names, configs, clone, and
// the loss-name metrics (MeanMetricWrapper around a loss).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "kiln/core/error.h"
#include "kiln/autodiff/gradient_tape.h"
#include "kiln/losses/losses.h"
#include "kiln/ops/math_ops.h"
#include "kiln/metrics/metrics.h"
#include "kiln/ops/reduce_ops.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_metric_base {

using namespace kiln;
using doctest::Approx;

namespace {
double v(const Tensor& t) { return t.item<double>(); }
void setup() {
  losses::register_builtins();
  metrics::register_builtins();
  metrics::register_builtins();  // idempotent
}
}  // namespace

TEST_CASE("state variables are non-trainable floats named after the metric") {
  metrics::Mean m({.name = "loss"});
  REQUIRE(m.variables().size() == 2);
  CHECK(m.variables()[0].name() == "total");
  CHECK(m.variables()[1].name() == "count");
  CHECK(m.variables()[0].path() == "loss/total");
  for (const auto& var : m.variables()) {
    CHECK_FALSE(var.trainable());
    CHECK(var.dtype() == DType::float32);
  }
  metrics::AUC auc({.num_thresholds = 7});
  REQUIRE(auc.variables().size() == 4);
  CHECK(auc.variables()[0].shape() == Shape{7});
  // reset_state restores the initial values.
  auc.update_state(Tensor({0.f, 1.f}), Tensor({0.3f, 0.6f}));
  CHECK(sum(auc.variables()[0].read_value_untracked()).item<double>() > 0);
  auc.reset_state();
  for (const auto& var : auc.variables()) CHECK(sum(var.read_value_untracked()).item<double>() == 0.0);
  // float64 metrics keep float64 state and results.
  metrics::Mean m64({.dtype = DType::float64});
  m64(1.5);
  CHECK(m64.result().dtype() == DType::float64);
  CHECK(m64.variables()[0].dtype() == DType::float64);
}

TEST_CASE("metrics record nothing on an active tape") {
  Variable w(Tensor({0.2f, 0.7f}));
  metrics::MeanSquaredError mse;
  GradientTape tape;
  Tensor pred = w.value() * 2.0;
  mse.update_state(Tensor({0.f, 1.f}), pred);
  Tensor loss = sum(pred);
  auto g = tape.gradient(loss, w);
  REQUIRE(g.has_value());
  CHECK(g->to_vector<double>() == std::vector<double>{2.0, 2.0});
  CHECK(v(mse.result()) == Approx(0.16));  // pred = [0.4, 1.4]
}

TEST_CASE("metrics::get by Keras names, aliases and class names") {
  setup();
  struct Case {
    const char* id;
    const char* cls;
    const char* name;
  };
  for (auto c : std::vector<Case>{{"accuracy", "Accuracy", "accuracy"},
                                  {"acc", "Accuracy", "acc"},
                                  {"binary_accuracy", "BinaryAccuracy", "binary_accuracy"},
                                  {"categorical_accuracy", "CategoricalAccuracy", "categorical_accuracy"},
                                  {"sparse_categorical_accuracy", "SparseCategoricalAccuracy", "sparse_categorical_accuracy"},
                                  {"top_k_categorical_accuracy", "TopKCategoricalAccuracy", "top_k_categorical_accuracy"},
                                  {"sparse_top_k_categorical_accuracy", "SparseTopKCategoricalAccuracy",
                                   "sparse_top_k_categorical_accuracy"},
                                  {"precision", "Precision", "precision"},
                                  {"recall", "Recall", "recall"},
                                  {"auc", "AUC", "auc"},
                                  {"AUC", "AUC", "auc"},
                                  {"mse", "MeanSquaredError", "mse"},
                                  {"mean_squared_error", "MeanSquaredError", "mean_squared_error"},
                                  {"MeanSquaredError", "MeanSquaredError", "mean_squared_error"},
                                  {"rmse", "RootMeanSquaredError", "rmse"},
                                  {"root_mean_squared_error", "RootMeanSquaredError", "root_mean_squared_error"},
                                  {"mae", "MeanAbsoluteError", "mae"},
                                  {"mape", "MeanAbsolutePercentageError", "mape"},
                                  {"msle", "MeanSquaredLogarithmicError", "msle"},
                                  {"cosine_similarity", "CosineSimilarity", "cosine_similarity"},
                                  {"f1_score", "F1Score", "f1_score"},
                                  {"fbeta_score", "FBetaScore", "fbeta_score"},
                                  {"true_positives", "TruePositives", "true_positives"},
                                  {"true_negatives", "TrueNegatives", "true_negatives"},
                                  {"false_positives", "FalsePositives", "false_positives"},
                                  {"false_negatives", "FalseNegatives", "false_negatives"},
                                  {"mean", "Mean", "mean"},
                                  {"sum", "Sum", "sum"},
                                  {"logcosh", "LogCoshError", "logcosh"},
                                  {"sparse_categorical_crossentropy", "MeanMetricWrapper", "sparse_categorical_crossentropy"},
                                  {"categorical_crossentropy", "MeanMetricWrapper", "categorical_crossentropy"},
                                  {"binary_crossentropy", "MeanMetricWrapper", "binary_crossentropy"},
                                  {"kl_divergence", "MeanMetricWrapper", "kl_divergence"},
                                  {"poisson", "MeanMetricWrapper", "poisson"},
                                  {"hinge", "MeanMetricWrapper", "hinge"},
                                  {"BinaryCrossentropy", "MeanMetricWrapper", "binary_crossentropy"}}) {
    CAPTURE(c.id);
    MetricPtr m = metrics::get(c.id);
    REQUIRE(m);
    CHECK(m->class_name() == c.cls);
    CHECK(m->name() == c.name);
  }
  CHECK_THROWS_AS(metrics::get("mean_iou"), ValueError);  // needs num_classes: only as an object
}

TEST_CASE("unknown metric names list close matches") {
  setup();
  try {
    metrics::get("sparse_categorical_acuracy");
    FAIL("expected an error");
  } catch (const NotFoundError& e) {
    std::string msg = e.what();
    CHECK(msg.find("sparse_categorical_acuracy") != std::string::npos);
    CHECK(msg.find("'sparse_categorical_accuracy'") != std::string::npos);
  }
  CHECK_THROWS_AS(metrics::get("precission"), NotFoundError);
}

TEST_CASE("loss-name metrics average the loss") {
  setup();
  MetricPtr m = metrics::get("sparse_categorical_crossentropy");
  Tensor yp({{0.05f, 0.95f, 0.f}, {0.1f, 0.8f, 0.1f}});
  m->update_state(Tensor({1, 2}), yp);
  CHECK(v(m->result()) == Approx(1.177).epsilon(1e-3));
  m->update_state(Tensor({1, 2}), yp, Tensor({1.f, 0.f}));
  CHECK(v(m->result()) == Approx((0.0513 + 2.303 + 0.0513) / 3).epsilon(1e-3));
  // Config carries the wrapped loss; from_config rebuilds it.
  auto logits = metrics::MeanMetricWrapper::from_loss(
      std::make_shared<losses::CategoricalCrossentropy>(losses::CategoricalCrossentropyOptions{.from_logits = true}),
      "cce");
  Config c = metrics::serialize(*logits);
  CHECK(c["class_name"] == "MeanMetricWrapper");
  CHECK(c["config"]["fn"]["class_name"] == "CategoricalCrossentropy");
  CHECK(c["config"]["fn"]["config"]["from_logits"] == true);
  MetricPtr back = metrics::from_config(c);
  back->update_state(Tensor({{1.f, 0.f}}), Tensor({{-1.f, 3.f}}));
  CHECK(v(back->result()) == Approx(4.01815).epsilon(1e-5));
  CHECK(back->name() == "cce");
  // BinaryCrossentropy metric with from_logits through its Keras config.
  Config bce = Config::parse(R"({"class_name": "BinaryCrossentropy", "config": {"name": "bce_logits", "from_logits": true}})");
  MetricPtr b = metrics::from_config(bce);
  b->update_state(Tensor({0.f, 1.f, 0.f, 0.f}), Tensor({-18.6f, 0.51f, 2.94f, -12.8f}));
  CHECK(v(b->result()) == Approx(0.8654).epsilon(1e-3));
  CHECK(b->name() == "bce_logits");
  // ignore_class masks entries out of the running mean.
  auto ign = metrics::MeanMetricWrapper::from_loss(std::make_shared<losses::SparseCategoricalCrossentropy>(
                                                       losses::SparseCategoricalCrossentropyOptions{.ignore_class = -1}),
                                                   "scce");
  ign->update_state(Tensor({1, 2, -1}), Tensor({{0.05f, 0.95f, 0.f}, {0.1f, 0.8f, 0.1f}, {0.3f, 0.3f, 0.4f}}));
  CHECK(v(ign->result()) == Approx(1.177).epsilon(1e-3));
}

TEST_CASE("from_function and MeanMetricWrapper") {
  setup();
  MetricPtr m = metrics::from_function([](const Tensor& t, const Tensor& p) { return mean(abs(t - p), -1); }, "l1");
  CHECK(m->name() == "l1");
  CHECK(m->class_name() == "MeanMetricWrapper");
  m->update_state(Tensor({{0.f, 1.f}, {0.f, 0.f}}), Tensor({{1.f, 1.f}, {0.f, 0.f}}));
  CHECK(v(m->result()) == Approx(0.25));
  auto copy = m->clone();
  CHECK(copy->name() == "l1");
  CHECK(v(copy->result()) == 0.0);  // fresh state
  copy->update_state(Tensor({{0.f, 1.f}}), Tensor({{1.f, 1.f}}));
  CHECK(v(copy->result()) == Approx(0.5));
  CHECK(v(m->result()) == Approx(0.25));  // the original is untouched
}

TEST_CASE("get_config keys, from_config round trips and clone") {
  setup();
  std::vector<MetricPtr> ms = {
      std::make_shared<metrics::Mean>(MetricOptions{.name = "m"}),
      std::make_shared<metrics::Sum>(),
      std::make_shared<metrics::Accuracy>(),
      std::make_shared<metrics::BinaryAccuracy>(metrics::BinaryAccuracyOptions{.threshold = 0.3}),
      std::make_shared<metrics::CategoricalAccuracy>(),
      std::make_shared<metrics::SparseCategoricalAccuracy>(MetricOptions{.name = "my_accuracy"}),
      std::make_shared<metrics::TopKCategoricalAccuracy>(metrics::TopKCategoricalAccuracyOptions{.k = 3}),
      std::make_shared<metrics::SparseTopKCategoricalAccuracy>(metrics::SparseTopKCategoricalAccuracyOptions{.k = 2}),
      std::make_shared<metrics::Precision>(metrics::PrecisionOptions{.thresholds = {0.3, 0.6}, .class_id = 1}),
      std::make_shared<metrics::Recall>(metrics::RecallOptions{.top_k = 2}),
      std::make_shared<metrics::AUC>(metrics::AUCOptions{.num_thresholds = 50, .curve = "PR", .from_logits = true}),
      std::make_shared<metrics::AUC>(metrics::AUCOptions{.thresholds = {0.2, 0.5}}),
      std::make_shared<metrics::TruePositives>(metrics::ConfusionCountOptions{.thresholds = {0.7}}),
      std::make_shared<metrics::FalseNegatives>(),
      std::make_shared<metrics::F1Score>(metrics::F1ScoreOptions{.average = "macro", .threshold = 0.4}),
      std::make_shared<metrics::FBetaScore>(metrics::FBetaScoreOptions{.average = "weighted", .beta = 2.0}),
      std::make_shared<metrics::MeanSquaredError>(),
      std::make_shared<metrics::RootMeanSquaredError>(),
      std::make_shared<metrics::MeanAbsoluteError>(),
      std::make_shared<metrics::MeanAbsolutePercentageError>(),
      std::make_shared<metrics::CosineSimilarity>(metrics::CosineSimilarityOptions{.axis = 1}),
      std::make_shared<metrics::MeanIoU>(3, metrics::MeanIoUOptions{.ignore_class = 0}),
  };
  for (const auto& m : ms) {
    CAPTURE(m->class_name());
    Config c = m->get_config();
    CHECK(c["name"] == m->name());
    CHECK(c["dtype"] == "float32");
    MetricPtr back = metrics::from_config(metrics::serialize(*m));
    CHECK(back->class_name() == m->class_name());
    CHECK(back->get_config() == c);
    MetricPtr cl = m->clone();
    CHECK(cl->class_name() == m->class_name());
    CHECK(cl->get_config() == c);
  }
  CHECK(metrics::BinaryAccuracy().get_config()["threshold"] == 0.5);
  Config p = metrics::Precision({.top_k = 3, .class_id = 2}).get_config();
  CHECK(p["thresholds"].is_null());
  CHECK(p["top_k"] == 3);
  CHECK(p["class_id"] == 2);
  Config a = metrics::AUC().get_config();
  CHECK(a["num_thresholds"] == 200);
  CHECK(a["curve"] == "ROC");
  CHECK(a["summation_method"] == "interpolation");
  CHECK_FALSE(a.contains("thresholds"));
  CHECK(metrics::F1Score().get_config().contains("beta") == false);
  CHECK(metrics::FBetaScore().get_config()["beta"] == 1.0);
}

TEST_CASE("clone gives a fresh metric with the same config") {
  metrics::Precision p({.thresholds = {0.4}, .name = "p40"});
  p.update_state(Tensor({1.f, 0.f}), Tensor({0.9f, 0.8f}));
  CHECK(v(p.result()) == Approx(0.5));
  auto c = p.clone();
  CHECK(c->name() == "p40");
  CHECK(v(c->result()) == 0.0);
  metrics::MeanIoU iou(2);
  auto ic = iou.clone();
  ic->update_state(Tensor({0, 1}), Tensor({0, 1}));
  CHECK(v(ic->result()) == Approx(1.0).epsilon(1e-6));
}

TEST_CASE("reset_states is tf.keras 2's name for reset_state") {
  // TF 2 guide: m = tf.keras.metrics.Mean(); m.update_state([1, 3]); m.reset_states(); m.result() -> 0.0
  metrics::Mean m;
  m.update_state(Tensor({1.f, 3.f}));
  CHECK(v(m.result()) == 2.0);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  m.reset_states();
#pragma GCC diagnostic pop
  CHECK(v(m.result()) == 0.0);
  m.update_state(Tensor({5.f}));
  CHECK(v(m.result()) == 5.0);
}

}  // namespace test_metric_base

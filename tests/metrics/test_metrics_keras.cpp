// Keras docstring examples for every metric, with sample weights and reset_state.
#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "kiln/core/error.h"
#include "kiln/metrics/metrics.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_metrics_keras {

using namespace kiln;
using doctest::Approx;

namespace {
double v(const Tensor& t) { return t.item<double>(); }
Tensor col(std::vector<float> x) {  // (N, 1)
  const int64_t n = static_cast<int64_t>(x.size());
  return Tensor(x, Shape{n, 1});
}
void check_vec(const Tensor& t, std::vector<double> expected, double eps = 1e-5) {
  auto got = t.to_vector<double>();
  REQUIRE(got.size() == expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(expected[i]).epsilon(eps));
}
}  // namespace

TEST_CASE("Mean: m(0), m(5) -> 2.5; then m([8, 9]) -> 5.5 (KERAS.md)") {
  metrics::Mean m;
  m(0);
  CHECK(v(m(5)) == Approx(2.5));
  CHECK(v(m(Tensor({8.f, 9.f}))) == Approx(5.5));
  CHECK(m.result().dtype() == DType::float32);
  CHECK(m.result().rank() == 0);
  CHECK(m.name() == "mean");
  m.reset_state();
  CHECK(v(m.result()) == 0.0);
  // Keras docstring.
  m.update_state(Tensor({1.f, 3.f, 5.f, 7.f}));
  CHECK(v(m.result()) == Approx(4.0));
  m.reset_state();
  m.update_state(Tensor({1.f, 3.f, 5.f, 7.f}), Tensor({1.f, 1.f, 0.f, 0.f}));
  CHECK(v(m.result()) == Approx(2.0));
  // The trainer's loss tracker form: update_state(Tensor(), loss, batch_size).
  metrics::Mean tracker({.name = "loss"});
  tracker.update_state(Tensor(), Tensor(2.f), Tensor(3.f));
  tracker.update_state(Tensor(), Tensor(4.f), Tensor(1.f));
  CHECK(v(tracker.result()) == Approx(2.5));
  CHECK(tracker.name() == "loss");
  // Rank-2 values are averaged per sample first.
  metrics::Mean m2;
  m2.update_state(Tensor({{1.f, 3.f}, {5.f, 7.f}}), Tensor({1.f, 0.f}));
  CHECK(v(m2.result()) == Approx(2.0));
}

TEST_CASE("Sum docstring") {
  metrics::Sum m;
  m.update_state(Tensor({1.f, 3.f, 5.f, 7.f}));
  CHECK(v(m.result()) == Approx(16.0));
  metrics::Sum w;
  w.update_state(Tensor({1.f, 3.f, 5.f, 7.f}), Tensor({1.f, 1.f, 0.f, 0.f}));
  CHECK(v(w.result()) == Approx(4.0));
}

TEST_CASE("Accuracy docstring") {
  metrics::Accuracy m;
  m.update_state(col({1, 2, 3, 4}), col({0, 2, 3, 4}));
  CHECK(v(m.result()) == Approx(0.75));
  m.reset_state();
  m.update_state(col({1, 2, 3, 4}), col({0, 2, 3, 4}), Tensor({1.f, 1.f, 0.f, 0.f}));
  CHECK(v(m.result()) == Approx(0.5));
  CHECK(m.name() == "accuracy");
}

TEST_CASE("BinaryAccuracy docstring") {
  metrics::BinaryAccuracy m;
  m.update_state(col({1, 1, 0, 0}), col({0.98f, 1, 0, 0.6f}));
  CHECK(v(m.result()) == Approx(0.75));
  m.reset_state();
  m.update_state(col({1, 1, 0, 0}), col({0.98f, 1, 0, 0.6f}), Tensor({1.f, 0.f, 0.f, 1.f}));
  CHECK(v(m.result()) == Approx(0.5));
  metrics::BinaryAccuracy t({.threshold = 0.7});
  t.update_state(col({1, 1, 0, 0}), col({0.98f, 0.65f, 0, 0.6f}));
  CHECK(v(t.result()) == Approx(0.75));
  CHECK_THROWS_AS(metrics::BinaryAccuracy({.threshold = 1.0}), ValueError);
}

TEST_CASE("CategoricalAccuracy docstring") {
  metrics::CategoricalAccuracy m;
  Tensor yt({{0.f, 0.f, 1.f}, {0.f, 1.f, 0.f}}), yp({{0.1f, 0.9f, 0.8f}, {0.05f, 0.95f, 0.f}});
  m.update_state(yt, yp);
  CHECK(v(m.result()) == Approx(0.5));
  m.reset_state();
  m.update_state(yt, yp, Tensor({0.7f, 0.3f}));
  CHECK(v(m.result()) == Approx(0.3));
}

TEST_CASE("SparseCategoricalAccuracy docstring") {
  metrics::SparseCategoricalAccuracy m;
  Tensor yp({{0.1f, 0.6f, 0.3f}, {0.05f, 0.95f, 0.f}});
  m.update_state(col({2, 1}), yp);
  CHECK(v(m.result()) == Approx(0.5));
  m.reset_state();
  m.update_state(col({2, 1}), yp, Tensor({0.7f, 0.3f}));
  CHECK(v(m.result()) == Approx(0.3));
  // Integer labels of shape (N,) work the same; a custom name is kept.
  metrics::SparseCategoricalAccuracy named({.name = "my_accuracy"});
  named.update_state(Tensor({2, 1}), yp);
  CHECK(v(named.result()) == Approx(0.5));
  CHECK(named.name() == "my_accuracy");
}

TEST_CASE("TopKCategoricalAccuracy and SparseTopKCategoricalAccuracy docstrings") {
  Tensor yp({{0.1f, 0.9f, 0.8f}, {0.05f, 0.95f, 0.f}});
  metrics::TopKCategoricalAccuracy m({.k = 1});
  m.update_state(Tensor({{0.f, 0.f, 1.f}, {0.f, 1.f, 0.f}}), yp);
  CHECK(v(m.result()) == Approx(0.5));
  m.reset_state();
  m.update_state(Tensor({{0.f, 0.f, 1.f}, {0.f, 1.f, 0.f}}), yp, Tensor({0.7f, 0.3f}));
  CHECK(v(m.result()) == Approx(0.3));
  metrics::SparseTopKCategoricalAccuracy s({.k = 1});
  s.update_state(Tensor({2, 1}), yp);
  CHECK(v(s.result()) == Approx(0.5));
  s.reset_state();
  s.update_state(Tensor({2, 1}), yp, Tensor({0.7f, 0.3f}));
  CHECK(v(s.result()) == Approx(0.3));
  // k = 2: both targets are in the top 2; the default k = 5 covers all 3 classes.
  metrics::SparseTopKCategoricalAccuracy k2({.k = 2});
  k2.update_state(Tensor({2, 1}), yp);
  CHECK(v(k2.result()) == Approx(1.0));
  CHECK(metrics::SparseTopKCategoricalAccuracy().get_config()["k"] == 5);
  // Ties at the boundary count as in the top k (tf.math.in_top_k).
  check_vec(metrics::in_top_k(Tensor({0, 2}), Tensor({{0.5f, 0.5f, 0.f}, {0.5f, 0.5f, 0.f}}), 1), {1.0, 0.0});
}

TEST_CASE("TruePositives, FalsePositives, TrueNegatives, FalseNegatives docstrings") {
  metrics::TruePositives tp;
  tp.update_state(Tensor({0.f, 1.f, 1.f, 1.f}), Tensor({1.f, 0.f, 1.f, 1.f}));
  CHECK(v(tp.result()) == Approx(2.0));
  tp.reset_state();
  tp.update_state(Tensor({0.f, 1.f, 1.f, 1.f}), Tensor({1.f, 0.f, 1.f, 1.f}), Tensor({0.f, 0.f, 1.f, 0.f}));
  CHECK(v(tp.result()) == Approx(1.0));

  metrics::FalsePositives fp;
  fp.update_state(Tensor({0.f, 1.f, 0.f, 0.f}), Tensor({0.f, 0.f, 1.f, 1.f}));
  CHECK(v(fp.result()) == Approx(2.0));
  fp.reset_state();
  fp.update_state(Tensor({0.f, 1.f, 0.f, 0.f}), Tensor({0.f, 0.f, 1.f, 1.f}), Tensor({0.f, 0.f, 1.f, 0.f}));
  CHECK(v(fp.result()) == Approx(1.0));

  metrics::TrueNegatives tn;
  tn.update_state(Tensor({0.f, 1.f, 0.f, 0.f}), Tensor({1.f, 1.f, 0.f, 0.f}));
  CHECK(v(tn.result()) == Approx(2.0));
  tn.reset_state();
  tn.update_state(Tensor({0.f, 1.f, 0.f, 0.f}), Tensor({1.f, 1.f, 0.f, 0.f}), Tensor({0.f, 0.f, 1.f, 0.f}));
  CHECK(v(tn.result()) == Approx(1.0));

  metrics::FalseNegatives fn;
  fn.update_state(Tensor({0.f, 1.f, 1.f, 1.f}), Tensor({0.f, 1.f, 0.f, 0.f}));
  CHECK(v(fn.result()) == Approx(2.0));
  fn.reset_state();
  fn.update_state(Tensor({0.f, 1.f, 1.f, 1.f}), Tensor({0.f, 1.f, 0.f, 0.f}), Tensor({0.f, 0.f, 1.f, 0.f}));
  CHECK(v(fn.result()) == Approx(1.0));

  // Several thresholds give one count each (evenly spaced ones use the bucket path).
  metrics::TruePositives multi({.thresholds = {0.15, 0.5, 0.85}});
  multi.update_state(Tensor({1.f, 1.f, 1.f, 0.f}), Tensor({0.1f, 0.6f, 0.9f, 0.7f}));
  check_vec(multi.result(), {2.0, 2.0, 1.0});
  metrics::FalsePositives even({.thresholds = {0.0, 0.5, 1.0}});
  even.update_state(Tensor({0.f, 0.f, 0.f, 1.f}), Tensor({0.0f, 0.5f, 0.7f, 1.0f}));
  check_vec(even.result(), {2.0, 1.0, 0.0});
  CHECK_THROWS_AS(metrics::TruePositives({.thresholds = {1.5}}), ValueError);
}

TEST_CASE("Precision docstring, top_k and class_id") {
  metrics::Precision m;
  m.update_state(Tensor({0.f, 1.f, 1.f, 1.f}), Tensor({1.f, 0.f, 1.f, 1.f}));
  CHECK(v(m.result()) == Approx(0.6666667));
  m.reset_state();
  m.update_state(Tensor({0.f, 1.f, 1.f, 1.f}), Tensor({1.f, 0.f, 1.f, 1.f}), Tensor({0.f, 0.f, 1.f, 0.f}));
  CHECK(v(m.result()) == Approx(1.0));
  metrics::Precision top2({.top_k = 2});
  top2.update_state(Tensor({0.f, 0.f, 1.f, 1.f}), Tensor({1.f, 1.f, 1.f, 1.f}));
  CHECK(v(top2.result()) == Approx(0.0));
  metrics::Precision top4({.top_k = 4});
  top4.update_state(Tensor({0.f, 0.f, 1.f, 1.f}), Tensor({1.f, 1.f, 1.f, 1.f}));
  CHECK(v(top4.result()) == Approx(0.5));
  // class_id = 1 of (N, 3): predictions > 0.5 in column 1 are rows 0 and 2; only row 0 is labelled 1.
  metrics::Precision cls({.class_id = 1});
  cls.update_state(Tensor({{0.f, 1.f, 0.f}, {0.f, 1.f, 0.f}, {1.f, 0.f, 0.f}}),
                   Tensor({{0.1f, 0.8f, 0.1f}, {0.6f, 0.3f, 0.1f}, {0.2f, 0.7f, 0.1f}}));
  CHECK(v(cls.result()) == Approx(0.5));
  // No positive predictions: 0, not nan.
  metrics::Precision empty;
  empty.update_state(Tensor({1.f, 1.f}), Tensor({0.1f, 0.2f}));
  CHECK(v(empty.result()) == 0.0);
  metrics::Precision multi({.thresholds = {0.3, 0.7}});
  multi.update_state(Tensor({0.f, 1.f, 1.f, 0.f}), Tensor({0.4f, 0.6f, 0.9f, 0.8f}));
  check_vec(multi.result(), {2.0 / 4.0, 1.0 / 2.0});
}

TEST_CASE("Recall docstring, top_k and class_id") {
  metrics::Recall m;
  m.update_state(Tensor({0.f, 1.f, 1.f, 1.f}), Tensor({1.f, 0.f, 1.f, 1.f}));
  CHECK(v(m.result()) == Approx(0.6666667));
  m.reset_state();
  m.update_state(Tensor({0.f, 1.f, 1.f, 1.f}), Tensor({1.f, 0.f, 1.f, 1.f}), Tensor({0.f, 0.f, 1.f, 0.f}));
  CHECK(v(m.result()) == Approx(1.0));
  // top_k = 1 per row: row 0's label (class 2) is not its top prediction, row 1's is.
  metrics::Recall top1({.top_k = 1});
  top1.update_state(Tensor({{0.f, 0.f, 1.f}, {0.f, 1.f, 0.f}}), Tensor({{0.1f, 0.9f, 0.8f}, {0.05f, 0.95f, 0.f}}));
  CHECK(v(top1.result()) == Approx(0.5));
  metrics::Recall cls({.class_id = 2});
  cls.update_state(Tensor({{0.f, 0.f, 1.f}, {0.f, 0.f, 1.f}}), Tensor({{0.1f, 0.2f, 0.7f}, {0.5f, 0.1f, 0.4f}}));
  CHECK(v(cls.result()) == Approx(0.5));
}

TEST_CASE("AUC docstring and curves") {
  metrics::AUC m({.num_thresholds = 3});
  m.update_state(Tensor({0.f, 0.f, 1.f, 1.f}), Tensor({0.f, 0.5f, 0.3f, 0.9f}));
  // tp = [2, 1, 0], fp = [2, 0, 0], fn = [0, 1, 2], tn = [0, 2, 2] -> 0.75
  check_vec(m.variables()[0].read_value_untracked(), {2, 1, 0});
  check_vec(m.variables()[1].read_value_untracked(), {2, 0, 0});
  check_vec(m.variables()[2].read_value_untracked(), {0, 2, 2});
  check_vec(m.variables()[3].read_value_untracked(), {0, 1, 2});
  CHECK(v(m.result()) == Approx(0.75));
  m.reset_state();
  m.update_state(Tensor({0.f, 0.f, 1.f, 1.f}), Tensor({0.f, 0.5f, 0.3f, 0.9f}), Tensor({1.f, 0.f, 0.f, 1.f}));
  CHECK(v(m.result()) == Approx(1.0));

  // Default 200 thresholds: a perfect ranking gives 1, a reversed one 0, and
  // the sklearn value for a mixed ranking (3 of 4 pairs ordered -> 0.75).
  metrics::AUC roc;
  roc.update_state(Tensor({0.f, 0.f, 1.f, 1.f}), Tensor({0.1f, 0.4f, 0.35f, 0.8f}));
  CHECK(v(roc.result()) == Approx(0.75).epsilon(1e-3));
  metrics::AUC perfect;
  perfect.update_state(Tensor({0.f, 1.f}), Tensor({0.2f, 0.8f}));
  CHECK(v(perfect.result()) == Approx(1.0));
  // from_logits: sigmoid first, same ranking.
  metrics::AUC logits({.from_logits = true});
  logits.update_state(Tensor({0.f, 0.f, 1.f, 1.f}), Tensor({-2.2f, -0.4f, -0.6f, 1.4f}));
  CHECK(v(logits.result()) == Approx(0.75).epsilon(1e-3));

  // PR curve, num_thresholds = 3, same data: tp = [2, 1, 0], fp = [2, 0, 0], fn = [0, 1, 2].
  // Interval 0: dtp = 1, P: 4 -> 1, slope = 1/3, intercept = 1 - 1/3 = 2/3,
  //   area = slope * (dtp + intercept * log(4 / 1)) / (tp1 + fn1) = (1 + 2/3 log 4) / 3 / 2.
  // Interval 1: dtp = 1, P: 1 -> 0, slope = 1, intercept = 0, p ratio -> 1: area = 1 / (0 + 2).
  metrics::AUC pr({.num_thresholds = 3, .curve = "PR"});
  pr.update_state(Tensor({0.f, 0.f, 1.f, 1.f}), Tensor({0.f, 0.5f, 0.3f, 0.9f}));
  CHECK(v(pr.result()) == Approx((1.0 + 2.0 / 3.0 * std::log(4.0)) / 6.0 + 0.5).epsilon(1e-5));
  // Minoring / majoring on ROC bound the interpolated value.
  metrics::AUC lo({.num_thresholds = 3, .summation_method = "minoring"});
  metrics::AUC hi({.num_thresholds = 3, .summation_method = "majoring"});
  lo.update_state(Tensor({0.f, 0.f, 1.f, 1.f}), Tensor({0.f, 0.5f, 0.3f, 0.9f}));
  hi.update_state(Tensor({0.f, 0.f, 1.f, 1.f}), Tensor({0.f, 0.5f, 0.3f, 0.9f}));
  CHECK(v(lo.result()) == Approx(0.5));
  CHECK(v(hi.result()) == Approx(1.0));
  // PR with minoring: recall x = [1, .5, 0], precision y = [.5, 1, 0] -> 0.5 * .5 + 0.5 * 0 = 0.25.
  metrics::AUC pr_lo({.num_thresholds = 3, .curve = "PR", .summation_method = "minoring"});
  pr_lo.update_state(Tensor({0.f, 0.f, 1.f, 1.f}), Tensor({0.f, 0.5f, 0.3f, 0.9f}));
  CHECK(v(pr_lo.result()) == Approx(0.25));
  // Explicit thresholds get the end points added.
  metrics::AUC given({.thresholds = {0.5}});
  CHECK(given.thresholds().size() == 3);
  CHECK(given.num_thresholds() == 3);
  given.update_state(Tensor({0.f, 0.f, 1.f, 1.f}), Tensor({0.f, 0.5f, 0.3f, 0.9f}));
  CHECK(v(given.result()) == Approx(0.75));
  CHECK_THROWS_AS(metrics::AUC({.curve = "XY"}), ValueError);
  CHECK_THROWS_AS(metrics::AUC({.num_thresholds = 1}), ValueError);
}

TEST_CASE("F1Score and FBetaScore docstrings and averages") {
  Tensor yt({{1.f, 1.f, 1.f}, {1.f, 0.f, 0.f}, {1.f, 1.f, 0.f}});
  Tensor yp({{0.2f, 0.6f, 0.7f}, {0.2f, 0.6f, 0.6f}, {0.6f, 0.8f, 0.0f}});
  metrics::F1Score f1({.threshold = 0.5});
  f1.update_state(yt, yp);
  check_vec(f1.result(), {0.5, 0.8, 0.6666667}, 1e-4);
  metrics::FBetaScore fb({.beta = 2.0, .threshold = 0.5});
  fb.update_state(yt, yp);
  check_vec(fb.result(), {0.3846154, 0.90909094, 0.8333334}, 1e-4);
  // tp = [1, 2, 1], fp = [0, 1, 1], fn = [2, 0, 0]
  metrics::F1Score micro({.average = "micro", .threshold = 0.5});
  micro.update_state(yt, yp);
  CHECK(v(micro.result()) == Approx(2.0 * 4 / (2 * 4 + 2 + 2)).epsilon(1e-4));  // 2tp / (2tp + fp + fn)
  metrics::F1Score macro({.average = "macro", .threshold = 0.5});
  macro.update_state(yt, yp);
  CHECK(v(macro.result()) == Approx((0.5 + 0.8 + 2.0 / 3.0) / 3).epsilon(1e-4));
  metrics::F1Score weighted({.average = "weighted", .threshold = 0.5});
  weighted.update_state(yt, yp);
  CHECK(v(weighted.result()) == Approx((3 * 0.5 + 2 * 0.8 + 1 * 2.0 / 3.0) / 6).epsilon(1e-4));
  // No threshold: each row's maximum is the prediction.
  metrics::F1Score argmax_f1;
  argmax_f1.update_state(Tensor({{1.f, 0.f}, {0.f, 1.f}}), Tensor({{0.6f, 0.4f}, {0.7f, 0.3f}}));
  check_vec(argmax_f1.result(), {2.0 / 3.0, 0.0}, 1e-4);
  // Sample weights scale each row.
  metrics::F1Score sw({.threshold = 0.5});
  sw.update_state(yt, yp, Tensor({1.f, 0.f, 0.f}));  // only row 0: tp=[0,1,1], fp=0, fn=[1,0,0]
  check_vec(sw.result(), {0.0, 1.0, 1.0}, 1e-4);
  sw.reset_state();
  check_vec(sw.result(), {0.0, 0.0, 0.0});
  CHECK_THROWS_AS(metrics::F1Score({.average = "samples"}), ValueError);
  CHECK_THROWS_AS(f1.update_state(Tensor({1.f, 0.f}), Tensor({0.3f, 0.2f})), ShapeError);
}

TEST_CASE("Regression metrics docstrings") {
  Tensor yt({{0.f, 1.f}, {0.f, 0.f}}), yp({{1.f, 1.f}, {0.f, 0.f}});
  metrics::MeanSquaredError mse;
  mse.update_state(yt, yp);
  CHECK(v(mse.result()) == Approx(0.25));
  metrics::MeanAbsoluteError mae;
  mae.update_state(yt, yp);
  CHECK(v(mae.result()) == Approx(0.25));
  mae.reset_state();
  mae.update_state(yt, yp, Tensor({1.f, 0.f}));
  CHECK(v(mae.result()) == Approx(0.5));
  metrics::MeanAbsolutePercentageError mape;
  mape.update_state(yt, yp);
  CHECK(v(mape.result()) == Approx(250000000.0).epsilon(1e-5));
  mape.reset_state();
  mape.update_state(yt, yp, Tensor({1.f, 0.f}));
  CHECK(v(mape.result()) == Approx(500000000.0).epsilon(1e-5));
  metrics::MeanSquaredLogarithmicError msle;
  msle.update_state(yt, yp);
  CHECK(v(msle.result()) == Approx(0.12011322));
  msle.reset_state();
  msle.update_state(yt, yp, Tensor({1.f, 0.f}));
  CHECK(v(msle.result()) == Approx(0.24022643));
  metrics::RootMeanSquaredError rmse;
  rmse.update_state(yt, yp);
  CHECK(v(rmse.result()) == Approx(0.5));
  rmse.reset_state();
  rmse.update_state(yt, yp, Tensor({1.f, 0.f}));
  CHECK(v(rmse.result()) == Approx(0.70710677));
  metrics::LogCoshError lc;
  lc.update_state(yt, yp);
  CHECK(v(lc.result()) == Approx(0.10844523));
  lc.reset_state();
  lc.update_state(yt, yp, Tensor({1.f, 0.f}));
  CHECK(v(lc.result()) == Approx(0.21689045));
  CHECK(lc.name() == "logcosh");
  metrics::CosineSimilarity cs({.axis = 1});
  cs.update_state(Tensor({{0.f, 1.f}, {1.f, 1.f}}), Tensor({{1.f, 0.f}, {1.f, 1.f}}));
  CHECK(v(cs.result()) == Approx(0.49999997));
  cs.reset_state();
  cs.update_state(Tensor({{0.f, 1.f}, {1.f, 1.f}}), Tensor({{1.f, 0.f}, {1.f, 1.f}}), Tensor({0.3f, 0.7f}));
  CHECK(v(cs.result()) == Approx(0.6999999));
}

TEST_CASE("MeanIoU docstring") {
  metrics::MeanIoU m(2);
  m.update_state(Tensor({0, 0, 1, 1}), Tensor({0, 1, 0, 1}));
  CHECK(v(m.result()) == Approx(0.33333334));
  m.reset_state();
  m.update_state(Tensor({0, 0, 1, 1}), Tensor({0, 1, 0, 1}), Tensor({0.3f, 0.3f, 0.3f, 0.1f}));
  CHECK(v(m.result()) == Approx(0.23809525));
  CHECK(m.name() == "mean_io_u");
  // Dense inputs with argmax, and an ignored class.
  metrics::MeanIoU dense(2, {.ignore_class = 1, .sparse_y_true = false, .sparse_y_pred = false});
  dense.update_state(Tensor({{1.f, 0.f}, {0.f, 1.f}, {1.f, 0.f}}), Tensor({{0.9f, 0.1f}, {0.2f, 0.8f}, {0.3f, 0.7f}}));
  // Kept rows: (true 0, pred 0), (true 0, pred 1): iou0 = 1/2, iou1 = 0/1 -> mean 0.25
  CHECK(v(dense.result()) == Approx(0.25));
  CHECK_THROWS_AS(m.update_state(Tensor({0, 3}), Tensor({0, 1})), ValueError);
}

}  // namespace test_metrics_keras

// kiln::distribute::DataParallel, run by CTest under `mpirun -np N` (and once
// without a launcher, as a group of one). Every rank runs every case in the
// same order, so their collectives line up. The reference of each case is the
// same training in one process: it runs on every rank before the strategy
// exists (with no strategy in scope fit() does not distribute).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <kiln/kiln.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "guide_cnn.h"
#include "test_util.h"

namespace L = kiln::layers;
namespace D = kiln::distribute;
using kiln::Tensor;
using kiln_test::check_values;
using kiln_test::contains;
using kiln_test::message_of;

namespace {

int world_rank() { return D::DataParallel().rank(); }

struct Data {
  Tensor x, y;
};

Data mnist_rows(int64_t n) {
  auto [train, test] = kiln::datasets::mnist::load_data();
  (void)test;
  Tensor x = kiln::cast(train.x[{kiln::Slice(0, n)}], kiln::float32) / 255.0;
  return {kiln::reshape(x, kiln::Shape({n, 28, 28, 1})), train.y[{kiln::Slice(0, n)}]};
}

Data blobs(int64_t n, int64_t features, uint64_t seed) {
  kiln::random::set_seed(seed);
  Tensor x = kiln::random::normal(kiln::Shape({n, features}));
  Tensor y = kiln::cast(kiln::argmax(kiln::matmul(x, kiln::random::normal(kiln::Shape({features, 3}))), -1),
                        kiln::int64);
  return {x, y};
}

std::shared_ptr<kiln::Model> functional_mlp() {
  Tensor in = kiln::Input({12});
  Tensor h = L::Dense(16, {.activation = "tanh"})(in);
  Tensor h2 = L::Dense(16, {.activation = "relu"})(in);
  Tensor out = L::Dense(3)(L::Concatenate()({h, h2}));
  return std::make_shared<kiln::Model>(in, out);
}

std::shared_ptr<kiln::Model> guide_cnn_bn(bool synchronized) {
  std::vector<kiln::LayerPtr> layers;
  for (auto& l : kiln::examples::guide_cnn_layers())
    if (l->class_name() != "Dropout")  // the equivalence holds without dropout
      layers.push_back(l->class_name() == "BatchNormalization" ? L::BatchNormalization({.synchronized = synchronized})
                                                               : l);
  return std::make_shared<kiln::Sequential>(layers);
}

/// Adam, except for models with BatchNormalization: the bias of the layer
/// before it has a gradient of pure rounding noise, which Adam's normalised
/// step turns into steps of the full learning rate in random directions.
void compile(kiln::Model& m, bool eager, int steps_per_execution = 1) {
  bool has_bn = false;
  for (const auto& l : m.layers()) has_bn = has_bn || l->class_name() == "BatchNormalization";
  kiln::OptimizerArg opt = has_bn ? kiln::OptimizerArg(std::make_shared<kiln::optimizers::SGD>(
                                        kiln::optimizers::SGDOptions{.learning_rate = 0.05, .momentum = 0.9}))
                                  : kiln::OptimizerArg("adam");
  m.compile({.optimizer = opt,
             .loss = kiln::losses::SparseCategoricalCrossentropy({.from_logits = true}),
             .metrics = {"accuracy"},
             .run_eagerly = eager,
             .steps_per_execution = steps_per_execution});
}

/// Largest |a - b| over the largest |a|, per variable, then the worst variable.
double max_relative_difference(const std::vector<kiln::Variable>& a, const std::vector<kiln::Variable>& b) {
  REQUIRE(a.size() == b.size());
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto va = a[i].read_value_untracked().to_vector<double>(), vb = b[i].read_value_untracked().to_vector<double>();
    double diff = 0, scale = 1e-12;
    for (std::size_t k = 0; k < va.size(); ++k) diff = std::max(diff, std::abs(va[k] - vb[k])), scale = std::max(scale, std::abs(va[k]));
    worst = std::max(worst, diff / scale);
    if (std::getenv("KILN_TEST_VERBOSE")) std::printf("%s %g\n", a[i].path().c_str(), diff / scale);
  }
  return worst;
}

struct Run {
  std::shared_ptr<kiln::Model> model;
  kiln::History history;
  std::vector<float> evaluated;
};

template <class Build>
Run train(Build build, const Data& d, int epochs, bool eager, uint64_t seed, int steps_per_execution = 1) {
  kiln::random::set_seed(seed);
  Run r{build(), {}, {}};
  compile(*r.model, eager, steps_per_execution);
  r.history = r.model->fit(d.x, d.y, {.batch_size = 64, .epochs = epochs, .verbose = 0});
  r.evaluated = r.model->evaluate(d.x, d.y, {.batch_size = 50, .verbose = 0});
  return r;
}

/// 20 steps in one process, then the same 20 steps across the ranks.
template <class Build>
std::pair<Run, Run> reference_and_distributed(Build build, const Data& d, int epochs, bool eager,
                                              int steps_per_execution = 1) {
  Run one = train(build, d, epochs, eager, 7, steps_per_execution);
  D::DataParallel strategy;
  Run many = train(build, d, epochs, eager, 7, steps_per_execution);
  return {std::move(one), std::move(many)};
}

void check_same_training(const Run& one, const Run& many) {
  CHECK(max_relative_difference(one.model->weights(), many.model->weights()) < 1e-4);
  for (const char* key : {"loss", "accuracy"})
    for (std::size_t e = 0; e < one.history[key].size(); ++e)
      CHECK(many.history[key][e] == doctest::Approx(one.history[key][e]).epsilon(1e-4));
  REQUIRE(one.evaluated.size() == many.evaluated.size());
  for (std::size_t i = 0; i < one.evaluated.size(); ++i)
    CHECK(many.evaluated[i] == doctest::Approx(one.evaluated[i]).epsilon(1e-4));
}

}  // namespace

TEST_CASE("distribute: a functional model trains on N ranks as on one, compiled and eager") {
  const Data d = blobs(320, 12, 3);  // 5 global batches of 64 a epoch, 4 epochs: 20 steps
  for (bool eager : {false, true}) {
    CAPTURE(eager);
    auto [one, many] = reference_and_distributed(functional_mlp, d, 4, eager);
    check_same_training(one, many);
  }
}

TEST_CASE("distribute: steps_per_execution runs several sharded steps per call") {
  const Data d = blobs(330, 12, 3);  // 5 full global batches and one of 10 a epoch: groups of 3, 2 + 1
  auto [one, many] = reference_and_distributed(functional_mlp, d, 2, false, 3);
  check_same_training(one, many);
}

TEST_CASE("distribute: a Dataset's global batches are split the same way, with validation") {
  const Data d = blobs(320, 12, 3);
  auto run = [&] {
    kiln::random::set_seed(7);
    auto m = functional_mlp();
    compile(*m, false);
    auto ds = kiln::Dataset::from_tensor_slices({d.x, d.y}).batch(64);
    auto val = std::make_shared<kiln::Dataset>(kiln::Dataset::from_tensor_slices({d.x, d.y}).batch(100));
    auto h = m->fit(ds, {.epochs = 2, .verbose = 0, .validation_dataset = val});
    return std::make_pair(m, h);
  };
  auto [one, h1] = run();
  D::DataParallel strategy;
  auto [many, h2] = run();
  CHECK(max_relative_difference(one->weights(), many->weights()) < 1e-4);
  for (const char* key : {"loss", "val_loss", "val_accuracy"})
    for (std::size_t e = 0; e < h1[key].size(); ++e) CHECK(h2[key][e] == doctest::Approx(h1[key][e]).epsilon(1e-4));
}

TEST_CASE("distribute: the guide CNN with synchronized BatchNormalization trains as on one rank") {
  const Data d = mnist_rows(640);  // 10 global batches of 64, 2 epochs
  auto [one, many] = reference_and_distributed([] { return guide_cnn_bn(true); }, d, 2, false);
  check_same_training(one, many);
}

TEST_CASE("distribute: per-replica BatchNormalization is not the one-rank training") {
  const Data d = mnist_rows(640);
  auto [one, many] = reference_and_distributed([] { return guide_cnn_bn(false); }, d, 2, false);
  D::DataParallel strategy;
  if (strategy.num_replicas_in_sync() == 1) return;
  // Each rank's moving statistics come from its own share of the batches, as in Keras.
  kiln::Variable moving;
  for (const auto& v : many.model->weights())
    if (v.name() == "moving_mean") moving = v;
  const Tensor mine = moving.read_value_untracked();
  const Tensor spread = strategy.all_reduce(mine, D::ReduceOp::Max) - strategy.all_reduce(mine, D::ReduceOp::Min);
  CHECK(kiln::max(spread).item<double>() > 1e-3);
  CHECK(max_relative_difference(one.model->weights(), many.model->weights()) > 1e-4);
}

TEST_CASE("distribute: a custom training loop averages its gradients in Optimizer::apply") {
  const Data d = blobs(64, 12, 5);
  auto step = [&](kiln::Model& m, kiln::Optimizer& opt, const Tensor& x, const Tensor& y) {
    kiln::GradientTape tape;
    Tensor loss = kiln::losses::SparseCategoricalCrossentropy({.from_logits = true})(y, m(x, true));
    const auto vars = m.trainable_variables();
    opt.apply(tape.gradient(loss, vars), vars);
  };
  kiln::random::set_seed(11);
  auto one = functional_mlp();
  kiln::optimizers::SGD opt1({.learning_rate = 0.1});
  step(*one, opt1, d.x, d.y);
  D::DataParallel strategy;
  kiln::random::set_seed(11);
  auto many = functional_mlp();
  kiln::optimizers::SGD opt2({.learning_rate = 0.1});
  const int64_t n = 64 / strategy.num_replicas_in_sync(), lo = strategy.rank() * n;
  step(*many, opt2, d.x[{kiln::Slice(lo, lo + n)}], d.y[{kiln::Slice(lo, lo + n)}]);
  CHECK(max_relative_difference(one->weights(), many->weights()) < 1e-5);
}

TEST_CASE("distribute: only rank 0 writes files, and progress") {
  D::DataParallel strategy;
  const auto dir = std::filesystem::temp_directory_path() / ("kiln_dp_files_" + std::to_string(strategy.rank()) + "_" +
                                                              std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const Data d = blobs(128, 12, 9);
  kiln::random::set_seed(1);
  auto m = functional_mlp();
  compile(*m, false);
  m->fit(d.x, d.y,
         {.batch_size = 64, .epochs = 2, .verbose = 0,
          .callbacks = {kiln::callbacks::CSVLogger((dir / "log.csv").string()),
                        kiln::callbacks::ModelCheckpoint({.filepath = (dir / "ckpt.weights.h5").string(), .save_weights_only = true}),
                        kiln::callbacks::BackupAndRestore({.backup_dir = (dir / "backup").string(), .delete_checkpoint = false})}});
  const bool chief = strategy.rank() == 0;
  CHECK(std::filesystem::exists(dir / "log.csv") == chief);
  CHECK(std::filesystem::exists(dir / "ckpt.weights.h5") == chief);
  CHECK(std::filesystem::exists(dir / "backup") == chief);
  std::filesystem::remove_all(dir);
}

TEST_CASE("distribute: ranks with different batch sizes or models fail at fit's start, naming the difference") {
  D::DataParallel strategy;
  if (strategy.num_replicas_in_sync() == 1) return;
  const Data d = blobs(128, 12, 9);
  auto m = functional_mlp();
  compile(*m, false);
  const int batch = strategy.rank() == 1 ? 32 : 64;
  const std::string msg = message_of([&] { m->fit(d.x, d.y, {.batch_size = batch, .epochs = 1, .verbose = 0}); });
  CHECK(contains(msg, "rank 1: batch_size is 32 here but 64 on rank 0"));
  // A different model: a wider first layer on rank 1.
  Tensor in = kiln::Input({12});
  Tensor out = L::Dense(3)(L::Dense(strategy.rank() == 1 ? 17 : 16)(in));
  auto other = std::make_shared<kiln::Model>(in, out);
  compile(*other, false);
  const std::string msg2 = message_of([&] { other->fit(d.x, d.y, {.batch_size = 64, .epochs = 1, .verbose = 0}); });
  CHECK(contains(msg2, "the ranks were given different configurations"));
  CHECK(contains(msg2, "rank 1: variable 0"));
}

TEST_CASE("distribute: bad options are clear errors") {
  CHECK(message_of([] { D::DataParallel s({.communication = "gloo"}); }) ==
        "DataParallel: communication must be \"auto\", \"mpi\" or \"nccl\", got \"gloo\"");
  CHECK(message_of([] { D::DataParallel s({.bucket_cap_mb = 0}); }) ==
        "DataParallel: bucket_cap_mb and first_bucket_cap_mb must be positive");
  CHECK(message_of([] { D::DataParallel s({.timeout = -1.0}); }) ==
        "DataParallel: timeout must be a positive number of seconds, got -1");
  // NCCL reduces GPU tensors; every rank fails the same way, at the first step.
  D::DataParallel strategy({.communication = "nccl"});
  const Data d = blobs(64, 12, 9);
  auto m = functional_mlp();
  compile(*m, false);
  const std::string msg = message_of([&] { m->fit(d.x, d.y, {.batch_size = 64, .epochs = 1, .verbose = 0}); });
  CHECK(contains(msg, "DataParallel: communication \"nccl\" cannot be used: the model's variables are on the CPU"));
}

TEST_CASE("distribute: all_reduce sums and differentiates across ranks") {
  D::DataParallel strategy;
  const double n = strategy.num_replicas_in_sync(), r = strategy.rank();
  kiln::Variable v(Tensor({1.0f, 2.0f}) * (r + 1.0));
  kiln::GradientTape tape;
  Tensor s = strategy.all_reduce(v.value() * v.value());
  // sum over ranks of (k+1)^2 * [1, 4]
  double sq = 0;
  for (int k = 0; k < n; ++k) sq += (k + 1.0) * (k + 1.0);
  check_values(s, {sq, 4 * sq});
  // d(sum of every rank's s)/dv = n * 2v: each rank's loss depends on every rank's v.
  auto g = tape.gradient(kiln::sum(s), v);
  check_values(*g, {2 * n * (r + 1), 4 * n * (r + 1)});
}

int main(int argc, char** argv) {
  doctest::Context ctx(argc, argv);
  // Only rank 0 reports; every rank still runs every case.
  if (world_rank() != 0) ctx.setOption("out", "/dev/null");
  const int rc = ctx.run();
  return rc;
}

// Keras's call context: `training` flows from the outermost layer call into the
// layers called inside it. The expected behaviours are Keras 3.15's (JAX
// backend), checked by running the same programs there.
#include <doctest/doctest.h>
#include <kiln/kiln.h>

#include <cmath>

namespace k = kiln;
namespace L = kiln::layers;

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_call_context {

/// y = dropout(x) + b, the dropout called without `training` unless `pass` says what to give it.
class DropoutBlock : public k::Layer {
 public:
  explicit DropoutBlock(std::optional<bool> pass = std::nullopt) : pass_(pass) {
    dropout_ = track(L::Dropout(0.5, {.seed = 7}).ptr());
  }
  std::optional<bool> seen;  ///< What the context said inside call().

 protected:
  void build(const k::Shape& input_shape) override { b_ = add_weight("b", {input_shape[-1]}, {.initializer = "zeros"}); }
  k::Tensor call(const k::Tensor& x, bool) override {
    seen = context_training();
    return (*dropout_)(x, pass_) + b_;
  }

 private:
  std::optional<bool> pass_;
  std::shared_ptr<L::DropoutImpl> dropout_;
  k::Variable b_;
};

/// A custom layer around another custom layer.
class Outer : public k::Layer {
 public:
  Outer() { inner_ = track(std::make_shared<DropoutBlock>()); }
  std::shared_ptr<DropoutBlock> inner_;

 protected:
  k::Tensor call(const k::Tensor& x, bool) override { return (*inner_)(x); }
};

int zeros(const k::Tensor& t) {
  int n = 0;
  for (float v : t.to_vector<float>()) n += v == 0.0f;
  return n;
}

/// The mean squared error of a model that should be the identity on ones: 1 where
/// the dropout drops (every element is 0 or 2), 0 where it does not.
double fit_loss(std::shared_ptr<DropoutBlock> block, bool run_eagerly) {
  k::Sequential model({L::Input({64}), k::LayerPtr(block)});
  model.compile({.optimizer = k::optimizers::SGD({.learning_rate = 0.0}), .loss = "mse", .run_eagerly = run_eagerly});
  k::Tensor x = k::ones({8, 64});
  k::History h = model.fit(x, x, {.batch_size = 8, .epochs = 1, .verbose = 0});
  return h.history.at("loss").at(0);
}

TEST_CASE("call context: a Dropout inside a custom layer drops during fit without being passed training") {
  for (bool eager : {true, false}) {
    CAPTURE(eager);
    auto block = std::make_shared<DropoutBlock>();
    CHECK(fit_loss(block, eager) == doctest::Approx(1.0));
    if (eager) CHECK(block->seen == std::optional<bool>(true));
  }
}

TEST_CASE("call context: an explicit training argument inside a custom layer wins over fit's") {
  CHECK(fit_loss(std::make_shared<DropoutBlock>(false), true) == doctest::Approx(0.0));
  CHECK(fit_loss(std::make_shared<DropoutBlock>(false), false) == doctest::Approx(0.0));
}

TEST_CASE("call context: evaluate and predict run the custom layer's Dropout in inference") {
  auto block = std::make_shared<DropoutBlock>();
  k::Sequential model({L::Input({64}), k::LayerPtr(block)});
  model.compile({.optimizer = "sgd", .loss = "mse"});
  k::Tensor x = k::ones({8, 64});
  CHECK(model.evaluate(x, x, {.verbose = 0}).at(0) == doctest::Approx(0.0));
  CHECK(zeros(model.predict(x, {.verbose = 0})) == 0);
}

TEST_CASE("call context: a custom layer called directly runs its Dropout as Keras does") {
  // Keras: layer(x) has no training anywhere, so Dropout takes its default (False);
  // layer(x, training=True) reaches the Dropout through the context.
  k::Tensor x = k::ones({2, 64});
  DropoutBlock block;
  CHECK(zeros(block(x)) == 0);
  CHECK(block.seen == std::nullopt);
  CHECK(zeros(block(x, true)) > 0);
  CHECK(zeros(block(x, false)) == 0);
  Outer outer;
  CHECK(zeros(outer(x)) == 0);
  CHECK(zeros(outer(x, true)) > 0);
  CHECK(outer.inner_->seen == std::optional<bool>(true));
  CHECK(k::Layer::context_training() == std::nullopt);  // the context ends with the outermost call
}

k::Tensor images() { return k::reshape(k::range(0.0, 16.0 * 4 * 4, 1.0, k::float32), {16, 4, 4, 1}); }

bool any_changed(const k::Tensor& a, const k::Tensor& b) {
  return k::max(k::abs(a - b)).item<float>() > 0.0f;
}

TEST_CASE("call context: an augmentation pipeline called directly augments, as in Keras 3") {
  k::Sequential augment({L::RandomFlip("horizontal", {.seed = 1})});
  const k::Tensor x = images();
  CHECK(any_changed(augment(x), x));
  CHECK_FALSE(any_changed(augment(x, false), x));
  L::RandomFlip flip("horizontal", {.seed = 3});
  CHECK(any_changed(flip(x), x));
}

TEST_CASE("call context: in a Sequential called directly each layer takes its own default") {
  // Keras 3.15: Sequential([RandomFlip, Dropout])(x) flips and does not drop.
  const k::Tensor x = images() + 1.0f;
  k::Sequential flip_then_drop({L::RandomFlip("horizontal", {.seed = 1}), L::Dropout(0.5, {.seed = 2})});
  const k::Tensor y = flip_then_drop(x);
  CHECK(zeros(y) == 0);
  CHECK(any_changed(y, x));
  // A layer without a default of its own takes the value its predecessor left in the
  // context: after RandomFlip (training=True) BatchNormalization normalises with the
  // batch's statistics; after Dropout (training=False) with its moving ones.
  k::Sequential flip_then_norm({L::RandomFlip("horizontal", {.seed = 1}), L::BatchNormalization()});
  const k::Tensor batch_stats = flip_then_norm(x);
  CHECK(std::abs(k::mean(batch_stats).item<float>()) < 1e-4f);
  k::Sequential drop_then_norm({L::Dropout(0.5, {.seed = 2}), L::BatchNormalization()});
  const k::Tensor moving_stats = drop_then_norm(x);
  CHECK(k::max(k::abs(moving_stats - x / std::sqrt(1.0f + 1e-3f))).item<float>() < 1e-3f);
}

TEST_CASE("call context: a functional model passes its training, else each layer's default") {
  k::Tensor in = L::Input({4, 4, 1});
  k::Tensor out = L::Dropout(0.5, {.seed = 4})(L::RandomFlip("horizontal", {.seed = 1})(in));
  k::Model model(in, out);
  const k::Tensor x = images() + 1.0f;
  const k::Tensor direct = model(x);
  CHECK(any_changed(direct, x));
  CHECK(zeros(direct) == 0);
  CHECK_FALSE(any_changed(model.predict(x, {.verbose = 0}), x));
  CHECK(zeros(model(x, true)) > 0);
}

}  // namespace test_call_context

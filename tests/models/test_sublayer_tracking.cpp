// Custom layers as short as Keras's: layer handles as members, tracked because the
// layer calls them (as Keras tracks attributes), and several inputs without
// takes_list(). The expected numbers are Keras 3.15's for the same layers.
#include <doctest/doctest.h>
#include <kiln/kiln.h>

namespace k = kiln;
namespace L = kiln::layers;

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_sublayer_tracking {

/// Keras's MLPBlock, with handles as members and no track().
class MLPBlock : public k::Layer {
 public:
  L::Dense dense1 = L::Dense(8, {.activation = "relu"});
  L::Dense dense2 = L::Dense(3);

 protected:
  k::Tensor call(const k::Tensor& x, bool) override { return dense2(dense1(x)); }
};

/// Makes a new layer in every call: a temporary, which must not pile up as a sublayer.
class Temporary : public k::Layer {
 protected:
  k::Tensor call(const k::Tensor& x, bool) override { return L::Dense(2)(x); }
};

/// Two inputs, called as layer({a, b}), with no takes_list() override.
class WeightedSum : public k::Layer {
 protected:
  std::vector<k::Tensor> call(const std::vector<k::Tensor>& xs, bool) override { return {xs.at(0) + 2.0 * xs.at(1)}; }
  using k::Layer::call;
};

/// A block around a block: the inner one's weights come through.
class Outer : public k::Layer {
 public:
  k::LayerHandle<MLPBlock> inner = k::make_layer<MLPBlock>();
  L::Dense head = L::Dense(1);

 protected:
  k::Tensor call(const k::Tensor& x, bool) override { return head(inner(x)); }
};

TEST_CASE("sublayer tracking: handles called in call() are sublayers, with Keras's weight count and order") {
  auto block = k::make_layer<MLPBlock>();
  CHECK(block->trainable_weights().empty());  // Keras: nothing before the first call builds it
  k::Tensor y = block(k::ones({2, 4}));
  CHECK(y.shape() == k::Shape({2, 3}));
  const auto w = block->trainable_weights();
  REQUIRE(w.size() == 4u);
  CHECK(w[0].shape() == k::Shape({4, 8}));  // dense1's kernel, bias, then dense2's
  CHECK(w[3].shape() == k::Shape({3}));
  CHECK(block->count_params() == 4 * 8 + 8 + 8 * 3 + 3);
  block(k::ones({2, 4}));
  CHECK(block->sublayers().size() == 2u);  // a second call adds nothing
}

TEST_CASE("sublayer tracking: fit trains the weights of a block that never called track()") {
  k::random::set_seed(3);
  auto outer = k::make_layer<Outer>();
  k::Sequential model({L::Input({4}), k::LayerPtr(outer)});
  CHECK(model.count_params() == 67 + 3 + 1);  // built by the symbolic call: every weight is there before fit
  model.compile({.optimizer = k::optimizers::SGD({.learning_rate = 0.05}), .loss = "mse"});
  const auto before = outer->inner->dense1->kernel().value().to_vector<float>();
  k::Tensor x = k::random::normal({32, 4}, 0, 1, k::DType::float32, 5);
  k::Tensor t = k::sum(x, {1}, true);
  auto h = model.fit(x, t, {.batch_size = 8, .epochs = 5, .verbose = 0});
  CHECK(outer->inner->dense1->kernel().value().to_vector<float>() != before);
  CHECK(h.history.at("loss").back() < h.history.at("loss").front());
  CHECK(outer->trainable_weights().size() == 6u);
}

/// A subclassed model written as Keras's: layers as members, no track().
class TinyModel : public k::Model {
 public:
  L::Dense hidden = L::Dense(6, {.activation = "tanh"});
  L::Dense out = L::Dense(1);

 protected:
  k::Tensor call(const k::Tensor& x, bool) override { return out(hidden(x)); }
};

TEST_CASE("sublayer tracking: a subclassed model's member layers train, in compiled and eager fit") {
  for (bool eager : {false, true}) {
    k::random::set_seed(4);
    auto model = std::make_shared<TinyModel>();
    model->compile({.optimizer = k::optimizers::SGD({.learning_rate = 0.05}), .loss = "mse", .run_eagerly = eager});
    k::Tensor x = k::random::normal({32, 3}, 0, 1, k::DType::float32, 6);
    auto h = model->fit(x, k::sum(x, {1}, true), {.batch_size = 8, .epochs = 4, .verbose = 0});
    CHECK(model->trainable_weights().size() == 4u);
    CHECK(model->count_params() == 3 * 6 + 6 + 6 + 1);
    CHECK(h.history.at("loss").back() < h.history.at("loss").front());
  }
}

TEST_CASE("sublayer tracking: a layer made inside call() is a temporary, not a sublayer") {
  auto t = k::make_layer<Temporary>();
  t(k::ones({2, 3}));
  t(k::ones({2, 3}));
  CHECK(t->sublayers().empty());
  CHECK(t->trainable_weights().empty());
}

TEST_CASE("several inputs: a list call reaches call(xs) without takes_list(), eagerly and in a functional model") {
  auto s = k::make_layer<WeightedSum>();
  k::Tensor a = k::Tensor({1.0f, 2.0f}), b = k::Tensor({10.0f, 20.0f});
  CHECK(s({a, b}).to_vector<float>() == std::vector<float>{21.0f, 42.0f});
  k::Tensor ia = L::Input({2}), ib = L::Input({2});
  k::Model m({ia, ib}, s({ia, ib}));
  CHECK(m.predict({a.reshape({1, 2}), b.reshape({1, 2})}).to_vector<float>() == std::vector<float>{21.0f, 42.0f});
  // A single-input layer given two inputs says so instead of dropping one.
  CHECK_THROWS_WITH_AS(L::Dense(2)({a.reshape({1, 2}), b.reshape({1, 2})}),
                       doctest::Contains("takes a single input, but was called with 2 inputs"), k::ValueError);
}

/// Overrides only the list call(), as a Keras layer with `def call(self, inputs)` over a list.
class DoubleAll : public k::Layer {
 protected:
  std::vector<k::Tensor> call(const std::vector<k::Tensor>& xs, bool) override {
    std::vector<k::Tensor> ys;
    for (const auto& x : xs) ys.push_back(x * 2.0);
    return ys;
  }
  using k::Layer::call;
};

/// Answers with two tensors for one input without declaring returns_list().
class Split2 : public k::Layer {
 protected:
  std::vector<k::Tensor> call(const std::vector<k::Tensor>& xs, bool) override { return {xs.at(0), -xs.at(0)}; }
  using k::Layer::call;
};

TEST_CASE("a layer with only a list call(): one tensor or a one-element list reaches it, never an identity") {
  auto d = k::make_layer<DoubleAll>();
  k::Tensor a = k::Tensor({1.0f, 2.0f});
  CHECK(d(a).to_vector<float>() == std::vector<float>{2.0f, 4.0f});
  CHECK(d(std::vector<k::Tensor>{a}).to_vector<float>() == std::vector<float>{2.0f, 4.0f});
  k::Tensor in = L::Input({2});
  k::Model m(in, d(in));
  CHECK(m.predict(a.reshape({1, 2})).to_vector<float>() == std::vector<float>{2.0f, 4.0f});
  // A plain Layer still passes its input through.
  auto plain = k::make_layer<k::Layer>();
  CHECK(plain(a).to_vector<float>() == std::vector<float>{1.0f, 2.0f});
  // Two outputs cannot come back as one tensor: the message says what to declare.
  auto s = k::make_layer<Split2>();
  CHECK_THROWS_WITH_AS(s(a), doctest::Contains("returned 2 outputs for one input"), k::ValueError);
}

}  // namespace test_sublayer_tracking

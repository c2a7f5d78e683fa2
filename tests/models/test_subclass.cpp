// Subclassed layers and models, custom train_step, hand-written loops, Module.
#include <doctest/doctest.h>
#include <kiln/kiln.h>

namespace k = kiln;
namespace L = kiln::layers;

namespace {

class FlexibleDense : public k::Layer {
 public:
  explicit FlexibleDense(int64_t units, k::LayerOptions o = {}) : Layer(o), units_(units) {}
  k::Variable w_, b_;

 protected:
  void build(const k::Shape& input_shape) override {
    w_ = add_weight("w", {input_shape[-1], units_});
    b_ = add_weight("b", {units_}, {.initializer = "zeros"});
  }
  k::Tensor call(const k::Tensor& x, bool) override { return k::matmul(x, w_) + b_; }

 private:
  int64_t units_;
};

class MyModel : public k::Model {
 public:
  MyModel() {
    d1_ = track(std::make_shared<FlexibleDense>(3));
    d2_ = track(std::make_shared<FlexibleDense>(2));
  }

 protected:
  k::Tensor call(const k::Tensor& x, bool training) override {
    k::Tensor h = (*d1_)(x, training);
    // Plain C++ control flow on tensor values.
    if (k::mean(h).item<float>() > 100.0f) h = h * 0.0;
    return (*d2_)(k::relu(h), training);
  }

 private:
  std::shared_ptr<FlexibleDense> d1_, d2_;
};

class CountingModel : public k::Sequential {
 public:
  using Sequential::Sequential;
  int steps = 0;
  k::Logs train_step(const k::Batch& b) override {
    ++steps;
    // The guide's custom train_step, written out.
    std::vector<k::Tensor> y_pred;
    k::Tensor loss;
    auto vars = trainable_variables();
    std::vector<std::optional<k::Tensor>> grads;
    {
      k::GradientTape tape;
      y_pred = call_outputs(b.x, true);
      loss = compute_loss(b, y_pred);
      grads = tape.gradient(loss, vars);
    }
    optimizer()->apply(grads, vars);
    return compute_metrics(b, y_pred, loss);
  }
};

}  // namespace

TEST_CASE("a custom layer's variables appear after the first call with Keras paths") {
  k::clear_session();
  auto layer = k::make_layer<FlexibleDense>(3);
  CHECK(layer->weights().empty());
  k::Tensor y = layer(k::ones({2, 4}));
  CHECK(y.shape() == k::Shape{2, 3});
  auto ws = layer->weights();
  REQUIRE(ws.size() == 2);
  CHECK(ws[0].path() == "flexible_dense/w");
  CHECK(ws[1].path() == "flexible_dense/b");
}

TEST_CASE("gradient check of a custom layer through the public checker") {
  auto layer = std::make_shared<FlexibleDense>(3, k::LayerOptions{.dtype = k::float64});
  k::Tensor x = k::random::normal({4, 5}, 0, 1, k::float64);
  auto r = k::check_gradients([&](const std::vector<k::Tensor>& in) { return k::tanh((*layer)(in[0])); }, {x});
  CHECK(r.ok);
  auto rv = k::check_gradients([&]() { return k::tanh((*layer)(x)); }, layer->weights());
  CHECK_MESSAGE(rv.ok, rv.report);
}

TEST_CASE("a subclassed model trains with fit and with a hand-written loop") {
  k::clear_session();
  k::random::set_seed(9);
  const int64_t n = 64;
  k::Tensor x = k::random::normal({n, 4});
  k::Tensor y = k::cast(k::greater(k::sum(x, 1), k::Tensor(0.0f)), k::int64);

  MyModel model;
  model.compile({.optimizer = k::optimizers::Adam({.learning_rate = 0.05}),
                 .loss = k::losses::SparseCategoricalCrossentropy({.from_logits = true}),
                 .metrics = {"accuracy"}});
  auto h = model.fit(x, y, {.batch_size = 16, .epochs = 10, .verbose = 0});
  CHECK(h["loss"].back() < h["loss"].front());
  CHECK(model.trainable_variables().size() == 4);
  CHECK(model.layers().size() == 2);
  // The name column wraps at 27 characters, as in tf.keras.
  CHECK(model.summary_string().find(" flexible_dense (FlexibleDen  multiple                 15") != std::string::npos);

  // The guide's hand-written loop.
  MyModel m2;
  auto opt = k::optimizers::get("adam");
  auto loss_fn = k::losses::SparseCategoricalCrossentropy({.from_logits = true});
  double first = 0, last = 0;
  for (int step = 0; step < 60; ++step) {
    k::GradientTape tape;
    k::Tensor logits = m2(x, true);
    k::Tensor loss = loss_fn(y, logits);
    for (const auto& l : m2.losses()) loss = loss + l;
    auto vars = m2.trainable_variables();
    auto grads = tape.gradient(loss, vars);
    std::vector<std::pair<std::optional<k::Tensor>, k::Variable>> gv;
    for (std::size_t i = 0; i < vars.size(); ++i) gv.emplace_back(grads[i], vars[i]);
    opt->apply_gradients(gv);
    if (step == 0) first = loss.item<double>();
    last = loss.item<double>();
  }
  CHECK(last < first);
}

TEST_CASE("fit uses an overridden train_step") {
  k::clear_session();
  CountingModel model({L::Input({3}), L::Dense(1)});
  model.compile({.optimizer = "sgd", .loss = "mse", .run_eagerly = true});
  model.fit(k::ones({10, 3}), k::ones({10, 1}), {.batch_size = 5, .epochs = 2, .verbose = 0});
  CHECK(model.steps == 4);
  // Compiled (the default), its C++ body runs once, while tracing, and the replays do the 4 steps.
  CountingModel compiled({L::Input({3}), L::Dense(1)});
  compiled.compile({.optimizer = "sgd", .loss = "mse"});
  compiled.fit(k::ones({10, 3}), k::ones({10, 1}), {.batch_size = 5, .epochs = 2, .verbose = 0});
  CHECK(compiled.steps == 1);
  CHECK(compiled.optimizer()->iterations() == 4);
}

namespace {
class DenseModule : public k::Module {
 public:
  DenseModule(int64_t in, int64_t out, std::string name) : Module(std::move(name)) {
    w = add_variable(k::random::normal({in, out}), {.name = "w"});
    b = add_variable(k::zeros({out}), {.name = "b"});
  }
  k::Tensor operator()(const k::Tensor& x) { return k::relu(k::matmul(x, w) + b); }
  k::Variable w, b;
};
class SequentialModule : public k::Module {
 public:
  SequentialModule() : Module("sequential_module") {
    dense_1 = track(std::make_shared<DenseModule>(3, 3, "dense_1"));
    dense_2 = track(std::make_shared<DenseModule>(3, 2, "dense_2"));
  }
  k::Tensor operator()(const k::Tensor& x) { return (*dense_2)((*dense_1)(x)); }
  std::shared_ptr<DenseModule> dense_1, dense_2;
};
}  // namespace

TEST_CASE("the guide's SequentialModule on kiln::Module") {
  SequentialModule m;
  k::Tensor y = m(k::Tensor({{2.f, 2.f, 2.f}}));
  CHECK(y.shape() == k::Shape{1, 2});
  auto vars = m.variables();
  REQUIRE(vars.size() == 4);
  CHECK(vars[0].path() == "dense_1/w");
  CHECK(vars[1].path() == "dense_1/b");
  CHECK(vars[2].path() == "dense_2/w");
  CHECK(vars[3].path() == "dense_2/b");
  CHECK(m.trainable_variables().size() == 4);
  auto subs = m.submodules();
  REQUIRE(subs.size() == 2);
  CHECK(subs[0]->name() == "dense_1");
  int64_t params = 0;
  for (const auto& v : vars) params += v.shape().num_elements();
  CHECK(params == 20);
  // Gradients flow to every tracked variable.
  k::GradientTape tape;
  k::Tensor loss = k::sum(m(k::Tensor({{1.f, 2.f, 3.f}})));
  auto g = tape.gradient(loss, vars);
  for (const auto& gi : g) CHECK(gi.has_value());
}

namespace {
/// A custom layer whose call() multiplies by a kernel sized for 3 features.
class FixedWidth : public k::Layer {
 public:
  FixedWidth() : Layer({.name = "flexible_dense"}) {}
  std::string class_name() const override { return "FlexibleDense"; }

 protected:
  k::Tensor call(const k::Tensor& x, bool) override { return k::matmul(x, k::ones({3, 2})); }
};
}  // namespace

TEST_CASE("an error inside call() names the layer, as Keras does, and keeps its type and shapes") {
  auto layer = std::make_shared<FixedWidth>();
  const std::string expected_head = "Exception encountered when calling layer 'flexible_dense' (type FlexibleDense).\n\n";
  try {
    (*layer)(k::ones({2, 4}));
    FAIL("expected a ShapeError");
  } catch (const k::ShapeError& e) {
    const std::string msg = e.what();
    CHECK(msg.rfind(expected_head, 0) == 0);
    CHECK(msg.find("(2, 4)") != std::string::npos);  // the inner message, with its shapes
    CHECK(msg.find("(3, 2)") != std::string::npos);
  }
  // Inside a model, the innermost layer names itself once; the model passes it on.
  k::Sequential model({layer});
  try {
    model(k::ones({2, 4}));
    FAIL("expected a ShapeError");
  } catch (const k::ShapeError& e) {
    const std::string msg = e.what();
    CHECK(msg.rfind(expected_head, 0) == 0);
    CHECK(msg.find("Exception encountered", 1) == std::string::npos);
  }
}

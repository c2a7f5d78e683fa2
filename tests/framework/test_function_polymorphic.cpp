// kiln::function with an input_signature that leaves sizes unknown (-1, TF's
// None): the body runs once, and every size the signature admits replays a
// graph made from that one trace, with the values eager execution gives.
#include <doctest/doctest.h>
#include <kiln/kiln.h>

#include <iostream>
#include <sstream>
#include <vector>

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_function_polymorphic {

namespace k = kiln;
namespace L = kiln::layers;

namespace {

void check_close(const k::Tensor& got, const k::Tensor& want) {
  REQUIRE(got.shape() == want.shape());
  const auto g = got.to_vector<float>(), w = want.to_vector<float>();
  for (std::size_t i = 0; i < g.size(); ++i) CHECK(g[i] == doctest::Approx(w[i]).epsilon(1e-5));
}

struct CaptureStreams {
  std::ostringstream out, err;
  std::streambuf* saved_out = std::cout.rdbuf(out.rdbuf());
  std::streambuf* saved_err = std::cerr.rdbuf(err.rdbuf());
  ~CaptureStreams() {
    std::cout.rdbuf(saved_out);
    std::cerr.rdbuf(saved_err);
  }
};

k::Tensor batch(int64_t n, uint64_t seed) { return k::random::normal({n, 3}, 0.f, 1.f, k::float32, seed); }

}  // namespace

TEST_CASE("polymorphic function: one trace serves every batch size, side effects run once") {
  // Reductions over the unknown axis and broadcasting against it: sizes the
  // ops work out again for each shape.
  auto body = [](const k::Tensor& x) {
    std::cout << "Tracing with " << x << "\n";
    const k::Tensor centred = x - k::mean(x, 0, true);
    return k::sum(k::square(centred), 1) / k::max(k::abs(x));
  };
  auto f = k::function(body, {.name = "centred", .input_signature = {k::TensorSpec({-1, 3}, k::float32)}});
  CaptureStreams streams;
  for (int64_t n : {2, 5, 2, 7, 5}) {
    CAPTURE(n);
    const k::Tensor x = batch(n, 10 + static_cast<uint64_t>(n));
    check_close(f(x), body(x));
  }
  // Once while tracing (what the graph knows), and once per eager reference call above (values).
  const std::string printed = streams.out.str();
  int tracing = 0;
  for (std::size_t at = printed.find("Tracing with"); at != std::string::npos; at = printed.find("Tracing with", at + 1))
    ++tracing;
  CHECK(tracing == 6);
  CHECK(printed.find("Tracing with Tensor(\"centred\", shape=(2, 3), dtype=float32)") != std::string::npos);
  CHECK(f.tracing_count() == 1);
  CHECK(streams.err.str().find("WARNING") == std::string::npos);
  CHECK(f.pretty_printed_concrete_signatures().find("TensorSpec(shape=(None, 3), dtype=float32, name=None)") !=
        std::string::npos);
  REQUIRE(f.traced_signatures().size() == 1);
  CHECK(f.traced_signatures()[0][0].shape == k::Shape{-1, 3});
  CHECK_THROWS_WITH_AS(f(k::ones({2, 4})), doctest::Contains("inputs incompatible with input_signature"), k::ValueError);
}

TEST_CASE("polymorphic function: a model's forward pass for {-1, 28, 28, 1} images, traced once") {
  k::clear_session();
  k::random::set_seed(3);
  auto model = std::make_shared<k::Sequential>(std::vector<k::LayerPtr>{
      L::Input({28, 28, 1}), L::Conv2D(4, {3, 3}, {.activation = "relu"}), L::MaxPooling2D({2, 2}), L::Flatten(),
      L::Dense(10, {.activation = "softmax"})});
  int traced = 0;
  auto predict = k::function([&](const k::Tensor& x) {
    ++traced;
    return (*model)(x, false);
  }, {.name = "predict", .input_signature = {k::TensorSpec({-1, 28, 28, 1}, k::float32)}});
  for (int64_t n : {3, 8, 1, 3}) {
    CAPTURE(n);
    const k::Tensor x = k::random::uniform({n, 28, 28, 1}, 0.f, 1.f, k::float32, 40 + static_cast<uint64_t>(n));
    check_close(predict(x), (*model)(x, false));
  }
  CHECK(traced == 1);
  CHECK(predict.tracing_count() == 1);
}

TEST_CASE("polymorphic function: a training step with a tape and an optimizer equals eager steps at any batch size") {
  auto run = [](bool traced) {
    k::clear_session();
    k::random::set_seed(7);
    auto d1 = L::Dense(6, {.activation = "relu"});
    auto bn = L::BatchNormalization();  // batch statistics over the unknown axis, moving averages assigned
    auto d2 = L::Dense(2);
    auto opt = k::optimizers::get("adam");
    int traces = 0;
    auto step = [&](const k::Tensor& x, const k::Tensor& y) {
      ++traces;
      k::GradientTape tape;
      const k::Tensor loss = k::mean(k::square(d2(bn(d1(x, true), true), true) - y));
      std::vector<k::Variable> vars = d1->trainable_variables();
      for (const k::LayerPtr& layer : std::vector<k::LayerPtr>{bn, d2})
        for (const auto& v : layer->trainable_variables()) vars.push_back(v);
      opt->apply(tape.gradient(loss, vars), vars);
      return loss;
    };
    auto compiled = k::function(step, {.name = "train_step",
                                       .input_signature = {k::TensorSpec({-1, 3}), k::TensorSpec({-1, 2})}});
    std::vector<float> out;
    int i = 0;
    for (int64_t n : {4, 9, 4, 1, 9}) {
      const k::Tensor x = batch(n, 100 + static_cast<uint64_t>(i));
      const k::Tensor y = k::random::normal({n, 2}, 0.f, 1.f, k::float32, 200 + static_cast<uint64_t>(i++));
      out.push_back((traced ? compiled(x, y) : step(x, y)).item<float>());
    }
    for (const k::LayerPtr& layer : std::vector<k::LayerPtr>{d1, bn})
      for (const auto& v : layer->weights())
        for (float w : v.value().to_vector<float>()) out.push_back(w);
    if (traced) {
      CHECK(traces == 1);
      CHECK(compiled.tracing_count() == 1);
    }
    return out;
  };
  const auto eager = run(false), graph = run(true);
  REQUIRE(eager.size() == graph.size());
  for (std::size_t i = 0; i < eager.size(); ++i) CHECK(graph[i] == doctest::Approx(eager[i]).epsilon(1e-5));
}

TEST_CASE("polymorphic function: a body that reads a size traces again per shape, with a warning that says why") {
  auto body = [](const k::Tensor& x) {
    const int64_t n = x.shape()[0];  // frozen into a graph: the trace cannot serve other sizes
    return k::reshape(x, {n * 3}) * 2.f;
  };
  auto f = k::function(body, {.name = "flat", .input_signature = {k::TensorSpec({-1, 3}, k::float32)}});
  CaptureStreams streams;
  check_close(f(batch(2, 1)), body(batch(2, 1)));
  check_close(f(batch(4, 2)), body(batch(4, 2)));
  CHECK(f.tracing_count() == 2);
  CHECK(streams.err.str().find("kiln::function 'flat' traces its body again for a new shape") != std::string::npos);
  CHECK(streams.err.str().find("reads a tensor's shape outside an op") != std::string::npos);
}

TEST_CASE("polymorphic function: get_concrete_function with the signature's specs is the one trace every call uses") {
  int traced = 0;
  auto body = [&](const k::Tensor& x) {
    ++traced;
    return k::reshape(x * 2.f + 1.0, {-1}) + k::zeros_like(k::reshape(x, {-1}));
  };
  auto f = k::function(body, {.name = "flatten", .input_signature = {k::TensorSpec({-1, 3}, k::float32)}});
  const k::ConcreteFunction c = f.get_concrete_function(k::TensorSpec({-1, 3}, k::float32));
  CHECK(traced == 1);
  REQUIRE(c.structured_input_signature().size() == 1);
  CHECK(c.structured_input_signature()[0].find("None, 3") != std::string::npos);
  for (int64_t n : {4, 2}) {
    const k::Tensor x = batch(n, 60 + static_cast<uint64_t>(n));
    check_close(f(x), body(x));
  }
  CHECK(traced == 3);  // the trace, then the two eager reference calls
  CHECK(f.tracing_count() == 1);
  auto plain = k::function([](const k::Tensor& x) { return x; }, {.name = "plain"});
  CHECK_THROWS_WITH_AS(plain.get_concrete_function(k::TensorSpec({-1, 3})),
                       doctest::Contains("get_concrete_function needs a fully defined shape"), k::ValueError);
}

TEST_CASE("polymorphic function: a metric updated inside accumulates over calls of every size, as eagerly") {
  k::metrics::Mean traced_mean, eager_mean;
  auto f = k::function([&](const k::Tensor& x) {
    traced_mean.update_state(k::square(x));
    return traced_mean.result();
  }, {.name = "running_mean", .input_signature = {k::TensorSpec({-1}, k::float32)}});
  std::string warnings;
  {
    CaptureStreams streams;
    for (int64_t n : {3, 5, 2, 5}) {
      CAPTURE(n);
      const k::Tensor x = k::random::normal({n}, 0.f, 1.f, k::float32, 80 + static_cast<uint64_t>(n));
      const float got = f(x).item<float>();
      eager_mean.update_state(k::square(x));
      CHECK(got == doctest::Approx(eager_mean.result().item<float>()).epsilon(1e-6));
    }
    warnings = streams.err.str();
  }
  CHECK(f.tracing_count() == 1);  // the metric's update is one logged call: its count is not frozen
  CHECK(warnings.empty());
}

}  // namespace test_function_polymorphic

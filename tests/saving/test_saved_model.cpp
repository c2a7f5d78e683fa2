// SavedModel: the guide's tf.Module with a traced __call__, saved and loaded
// back without its class (also by the saved_model_cli program); loaded
// functions differentiate and fine-tune; a model's serve function keeps a
// dynamic batch; damaged directories give errors naming the file.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "saving_util.h"
#include "test_util.h"

using namespace kiln;
namespace L = kiln::layers;
using kiln_test::contains;
using kiln_test::message_of;
using saving_test::tmp;

namespace {

std::vector<float> values(const Tensor& t) { return t.to_vector<float>(); }

void check_close(const Tensor& a, const Tensor& b, double tol = 1e-6) {
  REQUIRE(a.shape() == b.shape());
  const auto x = values(a), y = values(b);
  for (std::size_t i = 0; i < x.size(); ++i) CHECK(x[i] == doctest::Approx(y[i]).epsilon(tol).scale(1.0));
}

// The guide's Dense and MySequentialModule ("Saving functions").
class GuideDense : public Module {
 public:
  GuideDense(int64_t in, int64_t out, const std::string& name) : Module(name) {
    w = add_variable(random::normal({in, out}), {.name = "w"});
    b = add_variable(zeros({out}), {.name = "b"});
  }
  Tensor operator()(const Tensor& x) const { return relu(matmul(x, w) + b); }
  Variable w, b;
};

class MySequentialModule : public Module {
 public:
  MySequentialModule() : Module("the_model") {
    dense_1 = track(std::make_shared<GuideDense>(3, 3, "dense_1"));
    dense_2 = track(std::make_shared<GuideDense>(3, 2, "dense_2"));
  }
  std::shared_ptr<GuideDense> dense_1, dense_2;
  Function<std::function<Tensor(const Tensor&)>> call =
      kiln::function(std::function<Tensor(const Tensor&)>([this](const Tensor& x) { return (*dense_2)((*dense_1)(x)); }),
                     {.name = "__call__"});
};

// tests/CMakeLists.txt builds saved_model_cli and names it here.
std::string run_cli(const std::string& args) {
  std::string out;
  FILE* p = ::popen((std::string(KILN_SAVED_MODEL_CLI) + " " + args + " 2>&1").c_str(), "r");
  REQUIRE(p);
  char buf[512];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  CHECK(::pclose(p) == 0);
  return out;
}

}  // namespace

TEST_CASE("saved_model: the guide's module, saved with its traced __call__ and loaded without its class") {
  random::set_seed(5);
  MySequentialModule my_model;
  const Tensor x1({{2.0f, 2.0f, 2.0f}});
  const Tensor x2({{{2.0f, 2.0f, 2.0f}, {2.0f, 2.0f, 2.0f}}});
  const Tensor y1 = my_model.call(x1), y2 = my_model.call(x2);
  REQUIRE(my_model.call.tracing_count() == 2);
  const std::string dir = tmp("the_saved_model");
  saved_model::save(my_model, dir, {.functions = {saved_model::function("__call__", my_model.call)}});
  CHECK(std::filesystem::exists(dir + "/variables.onnx"));
  CHECK(std::filesystem::exists(dir + "/functions/__call___1.onnx"));

  auto new_model = saved_model::load(dir);
  CHECK(new_model->function_names() == std::vector<std::string>{"__call__"});
  check_close((*new_model)(x1), y1);
  check_close(new_model->call("__call__", {x2})[0], y2);
  std::vector<std::string> paths;
  for (const auto& v : new_model->variables()) paths.push_back(v.path());
  CHECK(paths == std::vector<std::string>{"dense_1/w", "dense_1/b", "dense_2/w", "dense_2/b"});
  // Only the traced signatures were saved, as in TensorFlow.
  const std::string msg = message_of([&] { (*new_model)(Tensor({{1.0f, 2.0f, 3.0f}, {4.0f, 5.0f, 6.0f}})); });
  CHECK(contains(msg, "match none of its saved signatures"));
  CHECK(contains(msg, "float32[2, 3]"));
  CHECK(contains(msg, "(float32[1, 3]) -> (float32[1, 2])"));
  CHECK(contains(msg, "(float32[1, 2, 3]) -> (float32[1, 2, 2])"));

  // A program built without MySequentialModule prints the same values.
  const std::string shown = run_cli("show " + dir);
  CHECK(contains(shown, "function __call__:"));
  CHECK(contains(shown, "variable dense_2/w float32(3, 2)"));
  std::ostringstream want;
  want << y1;
  CHECK(run_cli("run " + dir + " __call__ 1,3 2 2 2") == want.str() + "\n");
}

TEST_CASE("saved_model: loaded functions differentiate and fine-tune like the original") {
  random::set_seed(6);
  MySequentialModule m;
  const Tensor x = random::normal({4, 3});
  m.call(x);
  const std::string dir = tmp("finetune");
  saved_model::save(m, dir, {.functions = {saved_model::function("__call__", m.call)}});
  auto loaded = saved_model::load(dir);
  REQUIRE(loaded->trainable_variables().size() == 4);
  auto grads_of = [&](auto&& f, const std::vector<Variable>& vars) {
    GradientTape tape;
    Tensor loss = mean(square(f(x) - 1.0));
    return tape.gradient(loss, vars);
  };
  auto original = m.trainable_variables();
  auto copied = loaded->trainable_variables();
  for (int step = 0; step < 3; ++step) {
    const auto g0 = grads_of([&](const Tensor& in) { return (*m.dense_2)((*m.dense_1)(in)); }, original);
    const auto g1 = grads_of([&](const Tensor& in) { return (*loaded)(in); }, copied);
    for (std::size_t i = 0; i < g0.size(); ++i) {
      REQUIRE(g0[i].has_value());
      REQUIRE(g1[i].has_value());
      check_close(*g1[i], *g0[i], 1e-5);
      original[i].assign_sub(*g0[i] * 0.5);
      copied[i].assign_sub(*g1[i] * 0.5);
    }
    check_close((*loaded)(x), m.call(x), 1e-5);
  }
}

TEST_CASE("saved_model: a model's serve function keeps a dynamic batch and its non-trainable weights") {
  random::set_seed(7);
  auto model = std::make_shared<Sequential>(std::vector<LayerPtr>{
      L::Input({6, 6, 2}), L::Conv2D(4, 3, {.padding = "same", .activation = "relu"}), L::MaxPooling2D(),
      L::Flatten(), L::Dense(5), L::BatchNormalization(), L::Dense(3, {.activation = "softmax"})});
  model->compile({.optimizer = "adam", .loss = "sparse_categorical_crossentropy"});
  const Tensor x = random::normal({8, 6, 6, 2});
  model->fit(x, Tensor({0, 1, 2, 0, 1, 2, 0, 1}), {.batch_size = 4, .epochs = 1, .verbose = 0});
  const std::string dir = tmp("serve");
  saved_model::save(*model, dir);
  auto loaded = saved_model::load(dir);
  for (int64_t n : {3, 1}) {
    const Tensor xs = random::normal({n, 6, 6, 2});
    check_close(loaded->call("serve", {xs})[0], model->predict(xs), 1e-5);
  }
  CHECK(loaded->variables().size() == model->weights().size());
  CHECK(loaded->trainable_variables().size() == model->trainable_weights().size());
  CHECK(contains(loaded->function("serve").pretty_printed_signatures(), "float32[batch, 6, 6, 2]"));
}

TEST_CASE("saved_model: damaged directories give errors naming the file; a failed save keeps the old one") {
  random::set_seed(8);
  MySequentialModule m;
  m.call(Tensor({{1.0f, 2.0f, 3.0f}}));
  const std::string dir = tmp("damaged");
  saved_model::save(m, dir, {.functions = {saved_model::function("__call__", m.call)}});
  // A save that fails (a function never traced) leaves the earlier directory loadable.
  MySequentialModule untraced;
  CHECK(contains(message_of([&] {
          saved_model::save(untraced, dir, {.functions = {saved_model::function("__call__", untraced.call)}});
        }),
        "has no signature"));
  CHECK(saved_model::load(dir)->function_names().size() == 1);

  const std::string graph = dir + "/functions/__call___0.onnx";
  const auto size = std::filesystem::file_size(graph);
  for (auto keep : {size / 2, size - 3, std::uintmax_t{5}}) {
    std::filesystem::copy_file(graph, graph + ".bak", std::filesystem::copy_options::overwrite_existing);
    std::filesystem::resize_file(graph, keep);
    const std::string msg = message_of([&] { saved_model::load(dir); });
    CHECK(contains(msg, graph));
    std::filesystem::rename(graph + ".bak", graph);
  }
  std::ofstream(dir + "/saved_model.json") << "{\"format\": \"kiln.saved_model\", \"functions\": 3";
  CHECK(contains(message_of([&] { saved_model::load(dir); }), "saved_model.json"));
  CHECK(contains(message_of([&] { saved_model::load(tmp("nowhere")); }), "not a directory saved by"));
}

TEST_CASE("saved_model: recurrent layers come back as ONNX's LSTM, GRU and RNN ops, at any sequence length") {
  random::set_seed(9);
  auto model = std::make_shared<Sequential>(std::vector<LayerPtr>{
      L::Input({-1}, {.dtype = DType::int32}), L::Embedding(20, 5), L::LSTM(6, {.return_sequences = true}),
      L::GRU(4, {.return_sequences = true}), L::SimpleRNN(3)});
  const std::string dir = tmp("recurrent");
  saved_model::save(*model, dir);
  auto loaded = saved_model::load(dir);
  CHECK(contains(loaded->function("serve").pretty_printed_signatures(), "int32[batch, dim1]"));
  for (int64_t t : {7, 2}) {
    const Tensor tokens = cast(random::uniform({3, t}, 0.0, 19.99), DType::int32);
    check_close((*loaded)(tokens), model->predict(tokens), 1e-5);
  }
  std::ifstream in(dir + "/functions/serve_0.onnx", std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), {});
  for (const char* op : {"LSTM", "GRU", "RNN"}) CHECK_MESSAGE(bytes.find(op) != std::string::npos, op);
}

TEST_CASE("saved_model: kiln::cond and kiln::while_loop survive a save and load") {
  struct Grower : Module {
    Grower() : Module("grower") { rate = add_variable(Tensor(1.5f), {.name = "rate"}); }
    Variable rate;
  };
  Grower g;
  auto grow = kiln::function(
      [&g](const Tensor& x) {
        auto r = kiln::while_loop([](const std::vector<Tensor>& v) { return kiln::sum(v[1]) < 20.0; },
                                  [&g](const std::vector<Tensor>& v) {
                                    return std::vector<Tensor>{v[0] + 1.0, v[1] * g.rate + 0.25};
                                  },
                                  {Tensor(0.0f), x}, {.maximum_iterations = 12});
        return std::vector<Tensor>{r[0], kiln::cond(r[0] > 3.0, [&] { return r[1] * 0.5; }, [&] { return r[1]; })};
      },
      {.name = "grow", .input_signature = {TensorSpec({-1, 3})}});
  const std::string dir = tmp("control_flow");
  saved_model::save(g, dir, {.functions = {saved_model::function("grow", grow)}});
  auto loaded = saved_model::load(dir);
  for (const Tensor& x : {Tensor({{0.1f, 0.2f, 0.3f}}), Tensor({{1.0f, 2.0f, 3.0f}, {4.0f, 5.0f, 6.0f}})}) {
    const auto want = grow(x), got = loaded->call("grow", {x});
    REQUIRE(got.size() == 2);
    check_close(got[0], want[0]);
    check_close(got[1], want[1], 1e-5);
  }
  // The loop's variable is the loaded one: changing it changes the loop.
  Variable rate = loaded->variables()[0];
  rate.assign(Tensor(2.0f));
  g.rate.assign(Tensor(2.0f));
  const Tensor x({{0.1f, 0.2f, 0.3f}});
  check_close(loaded->call("grow", {x})[1], grow(x)[1], 1e-5);
}

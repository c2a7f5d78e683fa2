// Functional graph nodes with call keywords (lstm(x, initial_state=[h, c]),
// mha(q, v, use_causal_mask=True), layer(x, mask=m)) and keras.ops nodes:
// recorded, replayed, written as Keras 3 writes them and read back.
#include <doctest/doctest.h>
#include <kiln/kiln.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "kiln/nn/masking.h"

namespace k = kiln;
namespace L = kiln::layers;

namespace {
double max_abs_diff(const k::Tensor& a, const k::Tensor& b) {
  auto x = a.to_vector<double>(), y = b.to_vector<double>();
  REQUIRE(x.size() == y.size());
  double m = 0;
  for (std::size_t i = 0; i < x.size(); ++i) m = std::max(m, std::abs(x[i] - y[i]));
  return m;
}
std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}
const nlohmann::json& layer_entry(const nlohmann::json& config, const std::string& name) {
  for (const auto& l : config.at("layers"))
    if (l.at("name") == name) return l;
  FAIL("no layer entry named " << name);
  throw;
}
}  // namespace

TEST_CASE("initial_state as a call keyword: recorded, replayed, written as Keras's kwargs and read back") {
  k::clear_session();
  k::random::set_seed(3);
  auto x = k::Input({5, 3}, {.name = "seq"});
  auto h = k::Input({4}, {.name = "h"});
  auto c = k::Input({4}, {.name = "c"});
  L::LSTM lstm(4, {.name = "lstm"});
  k::Tensor y = lstm(x, {.initial_state = {h, c}});
  CHECK(y.shape() == k::Shape{k::None, 4});
  k::Model model(std::vector{x, h, c}, y);

  k::Tensor xs = k::random::normal({2, 5, 3}), hs = k::random::normal({2, 4}), cs = k::random::normal({2, 4});
  k::Tensor got = model(std::vector{xs, hs, cs}).at(0);
  k::Tensor want = lstm.call_multi({xs, hs, cs}).at(0);  // the list call {x, state...}
  CHECK(max_abs_diff(got, want) == 0.0);
  CHECK(max_abs_diff(got, lstm(xs)) > 1e-3);  // the states matter

  nlohmann::json config = model.get_config();
  const auto& node = layer_entry(config, "lstm").at("inbound_nodes").at(0);
  REQUIRE(node.at("args").size() == 1);
  CHECK(node.at("args")[0].at("config").at("keras_history") == nlohmann::json::array({"seq", 0, 0}));
  const auto& state = node.at("kwargs").at("initial_state");
  REQUIRE(state.size() == 2);
  CHECK(state[0].at("class_name") == "__keras_tensor__");
  CHECK(state[0].at("config").at("keras_history") == nlohmann::json::array({"h", 0, 0}));
  CHECK(state[1].at("config").at("keras_history") == nlohmann::json::array({"c", 0, 0}));

  auto again = k::Model::from_config({{"class_name", "Functional"}, {"config", config}});
  again->set_weights(model.get_weights());
  CHECK(max_abs_diff(again->operator()(std::vector{xs, hs, cs}).at(0), want) == 0.0);
  CHECK(again->get_config() == config);
}

TEST_CASE("use_causal_mask and return_attention_scores as call keywords of MultiHeadAttention") {
  k::clear_session();
  k::random::set_seed(4);
  auto q = k::Input({6, 8}, {.name = "q"});
  L::MultiHeadAttention mha(2, 4, {.name = "mha"});
  auto outs = mha.call_multi({q, q}, {.use_causal_mask = true, .return_attention_scores = true});
  REQUIRE(outs.size() == 2);
  CHECK(outs[0].shape() == k::Shape{k::None, 6, 8});
  CHECK(outs[1].shape() == k::Shape{k::None, 2, 6, 6});
  k::Model model(q, outs);

  k::Tensor xq = k::random::normal({3, 6, 8});
  auto got = model(std::vector{xq});
  auto [want, scores] = mha->attend(xq, xq, {.return_attention_scores = true, .use_causal_mask = true});
  CHECK(max_abs_diff(got.at(0), want) == 0.0);
  CHECK(max_abs_diff(got.at(1), scores) == 0.0);
  CHECK(max_abs_diff(got.at(0), mha({xq, xq})) > 1e-4);  // causal differs from full attention

  nlohmann::json config = model.get_config();
  const auto& node = layer_entry(config, "mha").at("inbound_nodes").at(0);
  CHECK(node.at("args").size() == 2);  // query and value positionally, as Keras
  CHECK(node.at("kwargs") == nlohmann::json{{"use_causal_mask", true}, {"return_attention_scores", true}});
  auto again = k::Model::from_config({{"class_name", "Functional"}, {"config", config}});
  again->set_weights(model.get_weights());
  CHECK(max_abs_diff(again->operator()(std::vector{xq}).at(0), want) == 0.0);
}

TEST_CASE("a layer that takes no such keyword says so, naming the layer and the keyword") {
  k::clear_session();
  L::Dense d(2, {.name = "head"});
  const std::string msg = message_of([&] { d(k::ones({1, 3}), {.use_causal_mask = true}); });
  CHECK(msg.find("'head'") != std::string::npos);
  CHECK(msg.find("use_causal_mask") != std::string::npos);
  auto x = k::Input({3});
  CHECK_THROWS_AS(d(x, {.use_causal_mask = true}), k::Error);
}

// keras.Model(x, Dense(2)(LSTM(4)(Masking()(x)))) with x = Input((5, 3)), as
// Keras 3.15 writes its config: Masking's mask as NotEqual and Any operation
// nodes, passed to the LSTM as its mask keyword.
const char* kKerasMaskingConfig = R"json({"name":"functional","trainable":true,"layers":[{"module":"keras.layers","class_name":"InputLayer","config":{"batch_shape":[null,5,3],"dtype":"float32","sparse":false,"ragged":false,"name":"input_layer","optional":false},"registered_name":null,"name":"input_layer","inbound_nodes":[]},{"module":"keras.src.ops.numpy","class_name":"NotEqual","config":{"name":"not_equal"},"registered_name":"NotEqual","name":"not_equal","inbound_nodes":[{"args":[{"class_name":"__keras_tensor__","config":{"shape":[null,5,3],"dtype":"float32","keras_history":["input_layer",0,0]}},0.0],"kwargs":{}}]},{"module":"keras.layers","class_name":"Masking","config":{"name":"masking","trainable":true,"dtype":{"module":"keras","class_name":"DTypePolicy","config":{"name":"float32"},"registered_name":null},"mask_value":0.0},"registered_name":null,"name":"masking","inbound_nodes":[{"args":[{"class_name":"__keras_tensor__","config":{"shape":[null,5,3],"dtype":"float32","keras_history":["input_layer",0,0]}}],"kwargs":{}}]},{"module":"keras.src.ops.numpy","class_name":"Any","config":{"name":"any","axis":-1,"keepdims":false},"registered_name":"Any","name":"any","inbound_nodes":[{"args":[{"class_name":"__keras_tensor__","config":{"shape":[null,5,3],"dtype":"bool","keras_history":["not_equal",0,0]}}],"kwargs":{}}]},{"module":"keras.layers","class_name":"LSTM","config":{"name":"lstm","trainable":true,"dtype":{"module":"keras","class_name":"DTypePolicy","config":{"name":"float32"},"registered_name":null},"return_sequences":false,"return_state":false,"go_backwards":false,"stateful":false,"unroll":false,"zero_output_for_mask":false,"units":4,"activation":"tanh","recurrent_activation":"sigmoid","use_bias":true,"kernel_initializer":{"module":"keras.initializers","class_name":"GlorotUniform","config":{"seed":null,"input_axes":null,"output_axes":null},"registered_name":null},"recurrent_initializer":{"module":"keras.initializers","class_name":"Orthogonal","config":{"seed":null,"gain":1.0},"registered_name":null},"bias_initializer":{"module":"keras.initializers","class_name":"Zeros","config":{},"registered_name":null},"unit_forget_bias":true,"kernel_regularizer":null,"recurrent_regularizer":null,"bias_regularizer":null,"activity_regularizer":null,"kernel_constraint":null,"recurrent_constraint":null,"bias_constraint":null,"dropout":0.0,"recurrent_dropout":0.0,"seed":null},"registered_name":null,"name":"lstm","inbound_nodes":[{"args":[{"class_name":"__keras_tensor__","config":{"shape":[null,5,3],"dtype":"float32","keras_history":["masking",0,0]}}],"kwargs":{"training":false,"mask":{"class_name":"__keras_tensor__","config":{"shape":[null,5],"dtype":"bool","keras_history":["any",0,0]}}}}]},{"module":"keras.layers","class_name":"Dense","config":{"name":"dense","trainable":true,"dtype":{"module":"keras","class_name":"DTypePolicy","config":{"name":"float32"},"registered_name":null},"units":2,"activation":"linear","use_bias":true,"kernel_initializer":{"module":"keras.initializers","class_name":"GlorotUniform","config":{"seed":null,"input_axes":null,"output_axes":null},"registered_name":null},"bias_initializer":{"module":"keras.initializers","class_name":"Zeros","config":{},"registered_name":null},"kernel_regularizer":null,"bias_regularizer":null,"kernel_constraint":null,"bias_constraint":null,"quantization_config":null},"registered_name":null,"name":"dense","inbound_nodes":[{"args":[{"class_name":"__keras_tensor__","config":{"shape":[null,4],"dtype":"float32","keras_history":["lstm",0,0]}}],"kwargs":{}}]}],"input_layers":["input_layer",0,0],"output_layers":["dense",0,0]})json";

TEST_CASE("a Keras functional Masking -> LSTM config (NotEqual/Any nodes, mask keyword) predicts as the Sequential") {
  k::clear_session();
  k::random::set_seed(5);
  auto loaded = k::Model::from_config({{"class_name", "Functional"}, {"config", nlohmann::json::parse(kKerasMaskingConfig)}});
  k::Sequential seq({L::Masking(), L::LSTM(4), L::Dense(2)});
  seq.build_for(k::Shape{k::None, 5, 3});
  loaded->set_weights(seq.get_weights());

  k::Tensor x = k::random::normal({3, 5, 3});
  // Padded steps: the last two of sample 0, the first of sample 2.
  x = x * k::Tensor({{{1.f}, {1.f}, {1.f}, {0.f}, {0.f}}, {{1.f}, {1.f}, {1.f}, {1.f}, {1.f}}, {{0.f}, {1.f}, {1.f}, {1.f}, {1.f}}});
  k::Tensor want = seq(x);
  CHECK(max_abs_diff(loaded->operator()(x), want) < 1e-6);

  nlohmann::json config = loaded->get_config();
  const auto& ne = layer_entry(config, "not_equal");
  CHECK(ne.at("module") == "keras.src.ops.numpy");
  CHECK(ne.at("registered_name") == "NotEqual");
  CHECK(ne.at("inbound_nodes")[0].at("args")[1] == 0.0);
  CHECK(layer_entry(config, "any").at("config") == nlohmann::json{{"name", "any"}, {"axis", -1}, {"keepdims", false}});
  const auto& kw = layer_entry(config, "lstm").at("inbound_nodes")[0].at("kwargs");
  CHECK(kw.at("training") == false);
  CHECK(kw.at("mask").at("config").at("keras_history") == nlohmann::json::array({"any", 0, 0}));
  auto again = k::Model::from_config({{"class_name", "Functional"}, {"config", config}});
  again->set_weights(seq.get_weights());
  CHECK(max_abs_diff(again->operator()(x), want) < 1e-6);
}

TEST_CASE("keras.ops nodes between layers: built with keras_op, replayed, and written with Keras's module") {
  k::clear_session();
  k::random::set_seed(6);
  auto a = k::Input({4}, {.name = "a"}), b = k::Input({4}, {.name = "b"});
  k::Tensor s = k::keras_op("Add", {a, b});
  k::Tensor twice = k::keras_op("Multiply", {s}, nlohmann::json::object(), R"([{"__kiln_tensor__": 0}, 2.0])");
  k::Tensor m = k::keras_op("Mean", {twice}, {{"axis", -1}, {"keepdims", true}});
  CHECK(m.shape() == k::Shape{k::None, 1});
  k::Tensor d = L::Dense(2, {.name = "head"})(s);
  k::Model model(std::vector{a, b}, std::vector{d, m});

  k::Tensor xa = k::random::normal({3, 4}), xb = k::random::normal({3, 4});
  auto got = model(std::vector{xa, xb});
  CHECK(max_abs_diff(got.at(1), k::mean((xa + xb) * 2.0, -1, true)) < 1e-6);

  nlohmann::json config = model.get_config();
  const auto& add = layer_entry(config, "add");
  CHECK(add.at("module") == "keras.src.ops.numpy");
  CHECK(add.at("class_name") == "Add");
  CHECK(layer_entry(config, "multiply").at("inbound_nodes")[0].at("args")[1] == 2.0);
  auto again = k::Model::from_config({{"class_name", "Functional"}, {"config", config}});
  again->set_weights(model.get_weights());
  auto back = again->operator()(std::vector{xa, xb});
  CHECK(max_abs_diff(back.at(0), got.at(0)) == 0.0);
  CHECK(max_abs_diff(back.at(1), got.at(1)) == 0.0);
}

TEST_CASE("an operation Kiln lacks is an error naming it") {
  nlohmann::json config = nlohmann::json::parse(kKerasMaskingConfig);
  config["layers"][1]["class_name"] = "Einsum";
  const std::string msg =
      message_of([&] { k::Model::from_config({{"class_name", "Functional"}, {"config", config}}); });
  CHECK(msg.find("Einsum") != std::string::npos);
  CHECK(msg.find("not_equal") != std::string::npos);
}

TEST_CASE("call keywords and keras.ops nodes survive .keras and legacy .h5 files") {
  k::clear_session();
  k::random::set_seed(7);
  auto x = k::Input({5, 3});
  k::Tensor h0 = L::Dense(4, {.activation = "tanh"})(k::keras_op("Mean", {x}, {{"axis", 1}}));
  k::Tensor c0 = k::keras_op("Multiply", {h0}, nlohmann::json::object(), R"([{"__kiln_tensor__": 0}, 0.5])");
  k::Tensor y = L::LSTM(4, {.return_sequences = true})(x, {.initial_state = {h0, c0}});
  k::Tensor s = k::keras_op("Add", {y, k::keras_op("ExpandDims", {k::keras_op("Sum", {y}, {{"axis", -1}})}, {{"axis", -1}})});
  k::Model model(x, L::Dense(2)(s));
  k::Tensor xs = k::random::normal({2, 5, 3});
  const k::Tensor want = model(xs);
  const std::string dir = std::filesystem::temp_directory_path().string();
  for (const std::string ext : {".keras", ".h5"}) {
    CAPTURE(ext);
    const std::string path = dir + "/kiln_kwargs_ops_" + std::to_string(::getpid()) + ext;
    model.save(path);
    auto loaded = k::models::load_model(path);
    CHECK(max_abs_diff(loaded->operator()(xs), want) < 1e-6);
    CHECK(loaded->layers().size() == model.layers().size());  // the ops are not layers
    std::filesystem::remove(path);
  }
}

TEST_CASE("a Keras 3 legacy .h5 config without modules: ops are told from layers of the same class name") {
  // Keras 3 writes .h5 configs without "module"; keras.ops.multiply(h, 0.5) is
  // then the entry {"class_name": "Multiply", "config": {"name": ...}}.
  k::clear_session();
  auto x = k::Input({4}, {.name = "x"});
  k::Tensor half = k::keras_op("Multiply", {x}, nlohmann::json::object(), R"([{"__kiln_tensor__": 0}, 0.5])");
  k::Tensor both = L::Multiply({.name = "product"})({x, half});
  k::Model model(x, both);
  nlohmann::json config = model.get_config();
  for (auto& l : config["layers"]) l.erase("module");
  auto loaded = k::Model::from_config({{"class_name", "Functional"}, {"config", config}});
  k::Tensor xs = k::random::normal({2, 4});
  CHECK(max_abs_diff(loaded->operator()(xs), xs * xs * 0.5) < 1e-6);
  CHECK(loaded->layers().size() == 2);  // x and product; the op is no layer
}

TEST_CASE("keras.ops GetItem nodes: Keras's serialized subscripts (Ellipsis, None, slices, negative ints)") {
  k::Tensor x = k::reshape(k::cast(k::range(24, k::int64), k::float32), {2, 3, 4});
  auto get = [&](const char* key) { return k::keras_op("GetItem", {x}, nlohmann::json::object(), key); };
  const auto all = R"({"class_name": "__slice__", "config": {"start": null, "stop": null, "step": null}})";
  CHECK(max_abs_diff(get(R"([{"__kiln_tensor__": 0}, [{"class_name": "__ellipsis__", "config": {}},
                             {"class_name": "__slice__", "config": {"start": 1, "stop": 3, "step": null}}]])"),
                     x[{k::ellipsis, k::Slice(1, 3)}]) == 0);
  CHECK(max_abs_diff(get((std::string(R"([{"__kiln_tensor__": 0}, [)") + all + R"(, null, -1]])").c_str()),
                     x[{k::Slice(), k::newaxis, -1}]) == 0);
  CHECK(get(R"([{"__kiln_tensor__": 0}, 1])").shape() == k::Shape({3, 4}));
  CHECK_THROWS_WITH_AS(get(R"([{"__kiln_tensor__": 0}, "a"])"),
                       doctest::Contains("Operation 'GetItem': supports int, slice, None and Ellipsis subscripts"),
                       k::ValueError);
}

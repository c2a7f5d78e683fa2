// Functional graphs in Keras's order (keras/src/ops/function.py, map_graph):
// layers by decreasing depth, ties by first visit from the outputs. Expected
// lists are what Keras 3.15 prints for the same models.
#include <doctest/doctest.h>
#include <kiln/kiln.h>
#include <kiln/nn/node.h>

#include <nlohmann/json.hpp>

namespace k = kiln;
namespace L = kiln::layers;

namespace {
std::vector<std::string> names(const std::vector<k::LayerPtr>& ls) {
  std::vector<std::string> out;
  for (const auto& l : ls) out.push_back(l->name());
  return out;
}
}  // namespace

TEST_CASE("a residual block's shortcut comes after the main branch's first layers, as in Keras") {
  k::clear_session();
  auto x = k::Input({6, 6, 3});
  k::Tensor y = L::Conv2D(4, 3, {.padding = "same", .name = "stem"})(x);
  for (int b = 0; b < 2; ++b) {
    const std::string p = "block" + std::to_string(b);
    k::Tensor shortcut = L::BatchNormalization({.name = p + "_0_bn"})(L::Conv2D(8, 1, {.name = p + "_0_conv"})(y));
    k::Tensor z = L::BatchNormalization({.name = p + "_1_bn"})(L::Conv2D(8, 1, {.name = p + "_1_conv"})(y));
    z = L::Conv2D(8, 3, {.padding = "same", .name = p + "_2_conv"})(L::Activation("relu")(z));
    y = L::Activation("relu")(L::Add()({shortcut, z}));
  }
  k::Model m(x, L::Dense(2)(L::GlobalAveragePooling2D()(y)));
  const std::vector<std::string> keras = {
      "input_layer", "stem", "block0_1_conv", "block0_1_bn", "block0_0_conv", "activation", "block0_0_bn",
      "block0_2_conv", "add", "activation_1", "block1_1_conv", "block1_1_bn", "block1_0_conv", "activation_2",
      "block1_0_bn", "block1_2_conv", "add_1", "activation_3", "global_average_pooling2d", "dense"};
  CHECK(names(m.layers()) == keras);
  // Weights follow the layers: the main branch's convolution before the shortcut's.
  auto ws = m.weights();
  REQUIRE(ws.size() > 4);
  CHECK(ws[2].path() == "block0_1_conv/kernel");
  // The config lists the layers in the same order, and a rebuilt model keeps it.
  auto config = m.get_config();
  std::vector<std::string> listed;
  for (const auto& e : config["layers"]) listed.push_back(e["name"].get<std::string>());
  CHECK(listed == keras);
  CHECK(names(k::Model::from_config({{"class_name", "Functional"}, {"config", config}})->layers()) == keras);
}

TEST_CASE("inputs take their place by depth: a second input used late comes after the deeper branch") {
  k::clear_session();
  auto a = k::Input({4}, {.name = "a"});
  auto b = k::Input({4}, {.name = "b"});
  k::Tensor h = L::Dense(4, {.name = "d1"})(L::Dense(4, {.name = "d0"})(a));
  k::Model m(std::vector{a, b}, L::Add({.name = "sum"})({h, b}));
  CHECK(names(m.layers()) == std::vector<std::string>{"a", "d0", "d1", "b", "sum"});
}

TEST_CASE("an RNN's states are outputs a config can name by tensor index") {
  k::clear_session();
  auto x = k::Input({5, 3});
  auto outs = L::LSTM(4, {.return_state = true, .name = "encoder"}).call_multi({x});
  REQUIRE(outs.size() == 3);
  k::Model m(x, L::Concatenate()({outs[1], outs[2]}));
  auto config = m.get_config();
  auto rebuilt = k::Model::from_config({{"class_name", "Functional"}, {"config", config}});
  rebuilt->set_weights(m.get_weights());
  k::Tensor in = k::random::normal({2, 5, 3});
  CHECK(k::max(k::abs(rebuilt->predict(in) - m.predict(in))).item<float>() == 0.0f);
  // One input, three outputs: a symbolic call of the layer itself keeps all of them.
  auto lstm = L::LSTM(4, {.return_state = true});
  k::Tensor first = lstm(x);
  CHECK(lstm->inbound_nodes().back()->output_tensors().size() == 3);
  CHECK(first.shape() == k::Shape{k::None, 4});
}

TEST_CASE("a nested functional model's outputs are node 1 in input_layers and output_layers, as Keras writes them") {
  k::clear_session();
  auto i = k::Input({3});
  auto decoder = std::make_shared<k::Model>(i, L::Dense(2)(i), k::LayerOptions{.name = "decoder"});
  auto x = k::Input({4});
  k::Tensor once = (*decoder)(L::Dense(3)(x));
  k::Tensor twice = (*decoder)(L::Dense(3)(once));
  k::Model m(x, std::vector{twice, once});
  auto c = m.get_config();
  // Inbound nodes count the model's calls from 0; the model's outputs from 1.
  CHECK(c["output_layers"] == nlohmann::json::parse(R"([["decoder", 2, 0], ["decoder", 1, 0]])"));
  bool found = false;
  for (const auto& e : c["layers"])
    if (e["name"] == "dense_2") {
      found = true;
      CHECK(e["inbound_nodes"][0]["args"][0]["config"]["keras_history"] == nlohmann::json::parse(R"(["decoder", 0, 0])"));
    }
  CHECK(found);
  auto rebuilt = k::Model::from_config({{"class_name", "Functional"}, {"config", c}});
  rebuilt->set_weights(m.get_weights());
  k::Tensor in = k::random::normal({2, 4});
  auto a = m.predict_outputs(in), b = rebuilt->predict_outputs(in);
  REQUIRE(b.size() == 2);
  for (int o = 0; o < 2; ++o) CHECK(k::max(k::abs(a[o] - b[o])).item<float>() == 0.0f);
}

TEST_CASE("merge layers add the missing axes after the batch axis, as Keras") {
  k::clear_session();
  k::Tensor a = k::Tensor({{1.0f, 2.0f, 3.0f}, {4.0f, 5.0f, 6.0f}});
  k::Tensor b = k::reshape(k::Tensor({{10.0f, 20.0f, 30.0f}, {40.0f, 50.0f, 60.0f}}), {2, 1, 1, 1, 1, 3});
  k::Tensor y = L::Multiply()({a, b});
  CHECK(y.shape() == k::Shape{2, 1, 1, 1, 1, 3});
  CHECK(k::reshape(y, {6}).to_vector<float>() == std::vector<float>{10, 40, 90, 160, 250, 360});
  k::Tensor c = k::ones({2, 4, 3});
  CHECK(L::Add()({a, c}).shape() == k::Shape{2, 4, 3});
  // Symbolic and concrete agree.
  auto sa = k::Input({3}), sc = k::Input({4, 3});
  CHECK(L::Subtract()({sa, sc}).shape() == k::Shape{k::None, 4, 3});
}

// Three keras.io models ported line for line: the transformer block of "Text
// classification with Transformer", the encoder and Sampling layer of "Variational
// AutoEncoder", and the toy ResNet of "The Functional API" guide. Each port sits
// between "port begin" and "port end" markers and must stay within 1.3x the line
// count of the Keras original (non-blank, non-comment lines, docstrings and
// summary() calls left out). With the same weights, each gives Keras 3.15's outputs:
// tests/fixtures/keras_io_ports/ports.json, written by make_fixture.py there.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <kiln/kiln.h>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace k = kiln;
namespace L = kiln::layers;

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_keras_io_ports {

// port begin: transformer_block (Keras: 18 lines)
class TransformerBlock : public k::Layer {
 public:
  TransformerBlock(int64_t embed_dim, int64_t num_heads, int64_t ff_dim, double rate = 0.1)
      : att(num_heads, embed_dim),
        ffn(k::make_layer<k::Sequential>(std::vector<k::LayerPtr>{L::Dense(ff_dim, {.activation = "relu"}), L::Dense(embed_dim)})),
        dropout1(rate), dropout2(rate) {}
  L::MultiHeadAttention att;
  k::LayerHandle<k::Sequential> ffn;
  L::LayerNormalization layernorm1 = L::LayerNormalization({.epsilon = 1e-6});
  L::LayerNormalization layernorm2 = L::LayerNormalization({.epsilon = 1e-6});
  L::Dropout dropout1, dropout2;

 protected:
  k::Tensor call(const k::Tensor& inputs, bool) override {
    k::Tensor attn_output = att({inputs, inputs});
    attn_output = dropout1(attn_output);
    k::Tensor out1 = layernorm1(inputs + attn_output);
    k::Tensor ffn_output = ffn(out1);
    ffn_output = dropout2(ffn_output);
    return layernorm2(out1 + ffn_output);
  }
};
// port end

// port begin: vae_encoder (Keras: 20 lines)
class Sampling : public k::Layer {
 protected:
  std::vector<k::Tensor> call(const std::vector<k::Tensor>& inputs, bool) override {
    const k::Tensor &z_mean = inputs.at(0), &z_log_var = inputs.at(1);
    k::Tensor epsilon = k::random::normal(z_mean.shape());
    return {z_mean + k::exp(0.5 * z_log_var) * epsilon};
  }
  using k::Layer::call;
};

k::MultiOutputModel<3> make_encoder(int64_t latent_dim = 2) {
  k::Tensor encoder_inputs = L::Input({28, 28, 1});
  k::Tensor x = L::Conv2D(32, 3, {.strides = 2, .padding = "same", .activation = "relu"})(encoder_inputs);
  x = L::Conv2D(64, 3, {.strides = 2, .padding = "same", .activation = "relu"})(x);
  x = L::Flatten()(x);
  x = L::Dense(16, {.activation = "relu"})(x);
  k::Tensor z_mean = L::Dense(latent_dim, {.name = "z_mean"})(x);
  k::Tensor z_log_var = L::Dense(latent_dim, {.name = "z_log_var"})(x);
  k::Tensor z = k::make_layer<Sampling>()({z_mean, z_log_var});
  return k::MultiOutputModel(encoder_inputs, {z_mean, z_log_var, z}, {.name = "encoder"});
}
// port end

// port begin: toy_resnet (Keras: 16 lines)
std::shared_ptr<k::Model> make_toy_resnet() {
  k::Tensor inputs = L::Input({32, 32, 3}, {.name = "img"});
  k::Tensor x = L::Conv2D(32, 3, {.activation = "relu"})(inputs);
  x = L::Conv2D(64, 3, {.activation = "relu"})(x);
  k::Tensor block_1_output = L::MaxPooling2D(3)(x);
  x = L::Conv2D(64, 3, {.padding = "same", .activation = "relu"})(block_1_output);
  x = L::Conv2D(64, 3, {.padding = "same", .activation = "relu"})(x);
  k::Tensor block_2_output = L::add({x, block_1_output});
  x = L::Conv2D(64, 3, {.padding = "same", .activation = "relu"})(block_2_output);
  x = L::Conv2D(64, 3, {.padding = "same", .activation = "relu"})(x);
  k::Tensor block_3_output = L::add({x, block_2_output});
  x = L::Conv2D(64, 3, {.activation = "relu"})(block_3_output);
  x = L::GlobalAveragePooling2D()(x);
  x = L::Dense(256, {.activation = "relu"})(x);
  x = L::Dropout(0.5)(x);
  k::Tensor outputs = L::Dense(10)(x);
  return std::make_shared<k::Model>(inputs, outputs, k::LayerOptions{.name = "toy_resnet"});
}
// port end

namespace {

const nlohmann::json& fixture() {
  static const nlohmann::json f = [] {
    std::ifstream in(std::string(KILN_SOURCE_DIR) + "/tests/fixtures/keras_io_ports/ports.json");
    REQUIRE(in.good());
    return nlohmann::json::parse(in);
  }();
  return f;
}

/// The weights make_fixture.py sets: weight j, flattened, is 0.2 sin(0.37 i + 1.3 j).
void set_pattern(k::Layer& layer) {
  std::vector<k::Tensor> ws;
  int j = 0;
  for (const auto& w : layer.weights()) {
    std::vector<float> v(static_cast<std::size_t>(w.shape().num_elements()));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(0.2 * std::sin(0.37 * double(i) + 1.3 * j));
    ws.emplace_back(v, w.shape());
    ++j;
  }
  layer.set_weights(ws);
}

/// make_fixture.py's inputs: 0.5 cos(0.11 i), flattened.
k::Tensor pattern_input(const k::Shape& shape) {
  std::vector<float> v(static_cast<std::size_t>(shape.num_elements()));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(0.5 * std::cos(0.11 * double(i)));
  return k::Tensor(v, shape);
}

void check_close(const k::Tensor& got, const nlohmann::json& want, double tol) {
  const auto g = got.to_vector<float>();
  const auto w = want.get<std::vector<double>>();
  REQUIRE(g.size() == w.size());
  for (std::size_t i = 0; i < g.size(); ++i) CHECK(g[i] == doctest::Approx(w[i]).epsilon(tol).scale(1.0));
}

}  // namespace

TEST_CASE("keras.io ports: each is at most 1.3x the lines of its Keras original") {
  std::ifstream in(std::string(KILN_SOURCE_DIR) + "/tests/models/test_keras_io_ports.cpp");
  REQUIRE(in.good());
  const std::regex begin(R"(^// port begin: (\w+) \(Keras: (\d+) lines\))");
  std::string line, name;
  int keras_lines = 0, lines = 0, ports = 0;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, begin)) {
      name = m[1], keras_lines = std::stoi(m[2]), lines = 0;
    } else if (line == "// port end") {
      INFO(name << ": " << lines << " lines against Keras's " << keras_lines);
      CHECK(lines <= 1.3 * keras_lines);
      ++ports;
      name.clear();
    } else if (!name.empty() && line.find_first_not_of(" \t") != std::string::npos &&
               line.compare(line.find_first_not_of(" \t"), 2, "//") != 0) {
      ++lines;
    }
  }
  CHECK(ports == 3);
}

TEST_CASE("keras.io ports: the transformer block has Keras's weights, in Keras's order, and Keras's outputs") {
  const auto& want = fixture().at("transformer_block");
  auto block = k::make_layer<TransformerBlock>(8, 2, 16);
  const k::Tensor x = pattern_input({2, 5, 8});
  block(x);
  const auto ws = block->weights();
  REQUIRE(ws.size() == want.at("weights").size());
  for (std::size_t i = 0; i < ws.size(); ++i)
    CHECK(ws[i].shape() == k::Shape(want.at("weights")[i].get<std::vector<int64_t>>()));
  CHECK(block->count_params() == want.at("params").get<int64_t>());
  set_pattern(*block);
  check_close(block(x, false), want.at("output"), 1e-5);
  // Called with training on, both Dropouts drop, without being passed `training`.
  CHECK(k::max(k::abs(block(x, true) - block(x, false))).item<float>() > 1e-3f);
}

TEST_CASE("keras.io ports: a classifier around the transformer block trains with fit") {
  k::random::set_seed(11);
  auto block = k::make_layer<TransformerBlock>(8, 2, 16);
  k::Tensor in = L::Input({6, 8});
  k::Tensor h = L::GlobalAveragePooling1D()(block(in));
  k::Model model(in, L::Dense(2, {.activation = "softmax"})(h));
  model.compile({.optimizer = k::optimizers::Adam({.learning_rate = 0.01}), .loss = "sparse_categorical_crossentropy"});
  k::Tensor xs = k::random::normal({64, 6, 8}, 0, 1, k::DType::float32, 12);
  k::Tensor ys = k::cast(k::greater(k::sum(xs, {1, 2}), k::Tensor(0.0f)), k::DType::int32);
  auto hist = model.fit(xs, ys, {.batch_size = 16, .epochs = 6, .verbose = 0});
  CHECK(hist.history.at("loss").back() < 0.8 * hist.history.at("loss").front());
  CHECK(model.trainable_weights().size() == 16u + 2u);
}

TEST_CASE("keras.io ports: the VAE encoder gives Keras's z_mean and z_log_var, and z samples around them") {
  const auto& want = fixture().at("vae_encoder");
  auto encoder = make_encoder();
  CHECK(encoder->count_params() == want.at("params").get<int64_t>());
  set_pattern(*encoder);
  // Keras: z_mean, z_log_var, z = encoder(data)
  const auto [z_mean, z_log_var, z] = encoder(pattern_input({2, 28, 28, 1}));
  check_close(z_mean, want.at("z_mean"), 1e-5);
  check_close(z_log_var, want.at("z_log_var"), 1e-5);
  // z = z_mean + exp(z_log_var / 2) eps with eps ~ N(0, 1): a fresh draw per call.
  const k::Tensor eps = (z - z_mean) / k::exp(0.5 * z_log_var);
  const auto again = encoder(pattern_input({2, 28, 28, 1}));
  CHECK(k::max(k::abs(again[2] - z)).item<float>() > 1e-4f);
  CHECK(k::max(k::abs(eps)).item<float>() < 6.0f);
  // The output count is in the type: three names bind, a Tensor does not.
  using Result = decltype(encoder(std::declval<k::Tensor>()));
  static_assert(std::tuple_size_v<Result> == 3);
  static_assert(!std::is_convertible_v<Result, k::Tensor>);
  static_assert(std::is_same_v<Result, decltype(encoder(std::vector<k::Tensor>{}))>);
  // The same model held as a plain kiln::Model keeps Keras's one-tensor call, which names the typed handle.
  const k::ModelPtr plain = encoder;
  CHECK_THROWS_WITH_AS((*plain)(pattern_input({2, 28, 28, 1})), doctest::Contains("has 3 outputs"), k::ValueError);
  CHECK_THROWS_WITH_AS((*plain)(pattern_input({2, 28, 28, 1})), doctest::Contains("kiln::MultiOutputModel<3>"),
                       k::ValueError);
  CHECK_THROWS_WITH_AS(k::MultiOutputModel<2>{plain}, "MultiOutputModel<2>: model 'encoder' has 3 outputs, not 2",
                       k::ValueError);
}

TEST_CASE("keras.io ports: the toy ResNet has the guide's 223,242 parameters and Keras's outputs") {
  const auto& want = fixture().at("toy_resnet");
  auto model = make_toy_resnet();
  CHECK(model->count_params() == 223242);
  CHECK(want.at("params").get<int64_t>() == 223242);
  set_pattern(*model);
  check_close(model->predict(pattern_input({2, 32, 32, 3})), want.at("output"), 1e-4);
}

}  // namespace test_keras_io_ports

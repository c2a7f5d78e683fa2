// Functional models: DAGs, shared layers, multi-input/-output training,
// configs, feature extraction and graph-construction errors.
#include <doctest/doctest.h>
#include <kiln/kiln.h>

#include <cmath>
#include <nlohmann/json.hpp>

namespace k = kiln;
namespace L = kiln::layers;

TEST_CASE("the guide's functional model has 20 parameters") {
  k::clear_session();
  auto inputs = k::Input({3});
  auto x = L::Dense(3)(inputs);
  auto outputs = L::Dense(2)(x);
  k::Model model(inputs, outputs);
  CHECK(model.count_params() == 20);
  CHECK(outputs.shape() == k::Shape{k::None, 2});
  CHECK(model.layers().size() == 3);  // input_layer, dense, dense_1
  k::Tensor y = model(k::ones({4, 3}));
  CHECK(y.shape() == k::Shape{4, 2});
}

TEST_CASE("two inputs, two outputs, a shared layer and a skip connection") {
  k::clear_session();
  k::random::set_seed(42);
  auto a = k::Input({16}, {.name = "a"});
  auto b = k::Input({16}, {.name = "b"});
  auto shared = L::Dense(16, {.activation = "relu"});
  auto h = L::Add()({shared(a), shared(b), a});
  auto out1 = L::Dense(1, {.name = "score"})(h);
  auto out2 = L::Dense(4, {.activation = "softmax", .name = "kind"})(L::Concatenate()({h, b}));
  k::Model two(std::vector{a, b}, std::vector{out1, out2});
  // The shared Dense is counted once: 16*16+16 + (16+1) + (32*4+4).
  CHECK(two.count_params() == 272 + 17 + 132);
  CHECK(two.output_names() == std::vector<std::string>{"score", "kind"});

  two.compile({.optimizer = "adam",
               .loss = {{"score", "mse"}, {"kind", "sparse_categorical_crossentropy"}},
               .loss_weights = {{"score", 1.0}, {"kind", 0.5}},
               .metrics = {{"kind", {"accuracy"}}}});
  const int64_t n = 128;
  k::Tensor xa = k::random::normal({n, 16}), xb = k::random::normal({n, 16});
  k::Tensor score = k::sum(xa, 1, true) * 0.1;
  k::Tensor kind = k::cast(k::argmax(k::slice(xb, {k::Slice(), k::Slice(0, 4)}), -1), k::int64);
  auto hist = two.fit(std::map<std::string, k::Tensor>{{"a", xa}, {"b", xb}},
                      std::map<std::string, k::Tensor>{{"score", score}, {"kind", kind}},
                      {.batch_size = 32, .epochs = 8, .verbose = 0, .validation_split = 0.25});
  std::vector<std::string> keys = {"loss", "score_loss", "kind_loss", "kind_accuracy",
                                   "val_loss", "val_score_loss", "val_kind_loss", "val_kind_accuracy"};
  CHECK(hist.keys() == keys);
  CHECK(hist["loss"].back() < hist["loss"].front());
  // The total is the weighted sum of the per-output losses (no regularizers here).
  CHECK(hist["loss"][0] == doctest::Approx(hist["score_loss"][0] + 0.5 * hist["kind_loss"][0]).epsilon(1e-4));
  auto preds = two.predict_outputs({xa, xb});
  REQUIRE(preds.size() == 2);
  CHECK(preds[0].shape() == k::Shape{n, 1});
  CHECK(preds[1].shape() == k::Shape{n, 4});
}

TEST_CASE("feature extraction and config round trip") {
  k::clear_session();
  auto in = k::Input({8});
  auto h = L::Dense(6, {.activation = "tanh", .name = "hidden"})(in);
  auto out = L::Dense(2, {.name = "head"})(h);
  k::Model model(in, out);
  k::Model features(model.inputs(), model.get_layer("hidden")->output());
  k::Tensor x = k::random::normal({5, 8});
  k::Tensor f = features(x);
  CHECK(f.shape() == k::Shape{5, 6});
  auto direct = k::tanh(k::matmul(x, model.get_layer("hidden")->weights()[0].value()) +
                        model.get_layer("hidden")->weights()[1].value());
  CHECK(k::max(k::abs(f - direct)).item<float>() < 1e-6f);

  k::Config cfg = model.get_config();
  k::clear_session();
  auto rebuilt = k::Model::from_config(k::Config{{"class_name", "Functional"}, {"config", cfg}});
  rebuilt->set_weights(model.get_weights());
  CHECK(k::max(k::abs(rebuilt->predict(x) - model.predict(x))).item<float>() == 0.0f);
  CHECK(rebuilt->get_config() == cfg);
}

TEST_CASE("nested models are layers") {
  k::clear_session();
  auto inner_in = k::Input({4});
  auto inner = std::make_shared<k::Model>(inner_in, L::Dense(3)(inner_in), k::LayerOptions{.name = "inner"});
  auto in = k::Input({4});
  auto out = L::Dense(1)((*inner)(in));
  k::Model outer(in, out);
  CHECK(outer.count_params() == 15 + 4);
  CHECK(outer(k::ones({2, 4})).shape() == k::Shape{2, 1});
}

TEST_CASE("graph-construction errors name the layer and the shapes") {
  k::clear_session();
  auto a = k::Input({16});
  auto b = k::Input({8});
  CHECK_THROWS_WITH_AS(L::Add()({a, b}), doctest::Contains("(None, 8)"), k::ShapeError);
  auto c = k::Input({4, 5});
  auto d = k::Input({3, 6});
  CHECK_THROWS_WITH_AS(L::Concatenate()({c, d}), doctest::Contains("(None, 3, 6)"), k::ShapeError);
  auto dense = L::Dense(3);
  dense(k::Input({5}));
  CHECK_THROWS_WITH_AS(dense(k::Input({6})), doctest::Contains("expected axis -1 of input shape to have value 5"),
                       k::ShapeError);
  // An output not connected to the given inputs.
  auto other = k::Input({16});
  auto y = L::Dense(1)(other);
  CHECK_THROWS_WITH_AS(k::Model(a, y), doctest::Contains("not connected"), k::ValueError);
}

TEST_CASE("a functional model squeezes or adds one trailing axis of size 1, as Keras's _adjust_input_rank") {
  auto in = k::Input({3});
  k::Model m(in, L::Dense(2, {.kernel_initializer = "ones"})(in));
  const k::Tensor x = k::reshape(k::arange(6.0f), {2, 3});
  const std::vector<float> want = m(x).to_vector<float>();
  CHECK(m(k::reshape(x, {2, 3, 1})).to_vector<float>() == want);
  auto column = k::Input({1}, {.dtype = k::string_});
  k::Model lookup(column, L::StringLookup({.vocabulary = std::vector<std::string>{"a", "b"}})(column));
  const k::Tensor ids = lookup(k::Tensor({"b", "zebra", "a"}));  // (3,) for Input(shape=(1,))
  CHECK(ids.shape() == k::Shape{3, 1});
  CHECK(ids.to_vector<int64_t>() == std::vector<int64_t>{2, 0, 1});
  CHECK_THROWS_WITH_AS(m(k::reshape(x, {2, 3, 1, 1})), doctest::Contains("expected shape=(None, 3), found shape=(2, 3, 1, 1)"),
                       k::ShapeError);
  CHECK_THROWS_AS(m(k::reshape(x, {6, 1})), k::ShapeError);
}

TEST_CASE("summary of a functional model with a shared layer has 'Connected to'") {
  k::clear_session();
  auto a = k::Input({4}, {.name = "a"});
  auto b = k::Input({4}, {.name = "b"});
  auto shared = L::Dense(4, {.name = "shared"});
  auto s = L::Add({.name = "add"})({shared(a), shared(b)});
  auto out = L::Dense(1, {.name = "out"})(s);
  k::Model model(std::vector{a, b}, std::vector{out}, {.name = "model"});
  const std::string expected =
      "Model: \"model\"\n"
      "__________________________________________________________________________________________________\n"
      " Layer (type)                   Output Shape         Param #     Connected to                     \n"
      "==================================================================================================\n"
      " a (InputLayer)                 [(None, 4)]          0           []                               \n"
      "                                                                                                  \n"
      " b (InputLayer)                 [(None, 4)]          0           []                               \n"
      "                                                                                                  \n"
      " shared (Dense)                 multiple             20          ['a[0][0]',                      \n"
      "                                                                  'b[0][0]']                      \n"
      "                                                                                                  \n"
      " add (Add)                      (None, 4)            0           ['shared[0][0]',                 \n"
      "                                                                  'shared[1][0]']                 \n"
      "                                                                                                  \n"
      " out (Dense)                    (None, 1)            5           ['add[0][0]']                    \n"
      "                                                                                                  \n"
      "==================================================================================================\n"
      "Total params: 25\n"
      "Trainable params: 25\n"
      "Non-trainable params: 0\n"
      "__________________________________________________________________________________________________\n";
  CHECK(model.summary_string() == expected);
}

TEST_CASE("a ResNet-style block trains on MNIST") {
  k::clear_session();
  k::random::set_seed(0);
  auto [train, test] = k::datasets::mnist::load_data();
  k::Tensor x = k::expand_dims(k::cast(k::slice(train.x, {k::Slice(0, 512)}), k::float32) / 255.0f, -1);
  k::Tensor y = k::slice(train.y, {k::Slice(0, 512)});
  auto in = k::Input({28, 28, 1});
  auto h = L::Conv2D(8, 3, {.padding = "same"})(in);
  h = L::BatchNormalization()(h);
  h = L::Activation("relu")(h);
  auto r = L::Conv2D(8, 3, {.padding = "same"})(h);
  r = L::BatchNormalization()(r);
  h = L::Activation("relu")(L::Add()({h, r}));
  h = L::MaxPooling2D()(h);
  auto out = L::Dense(10)(L::Flatten()(h));
  k::Model model(in, out);
  model.compile({.optimizer = "adam",
                 .loss = k::losses::SparseCategoricalCrossentropy({.from_logits = true}),
                 .metrics = {"accuracy"}});
  auto hist = model.fit(x, y, {.batch_size = 64, .epochs = 3, .verbose = 0});
  CHECK(hist["loss"].back() < hist["loss"].front());
  CHECK(hist["accuracy"].back() > 0.5);
}

TEST_CASE("Embedding on an integer Input gives a float symbolic output") {
  k::clear_session();
  auto ids = k::Input({5}, {.dtype = k::int32});
  auto e = L::Embedding(10, 4)(ids);
  CHECK(e.dtype() == k::float32);
  CHECK(e.shape() == k::Shape{k::None, 5, 4});
  auto out = L::Dense(1)(L::Flatten()(e));
  k::Model m(ids, out);
  k::Tensor x(std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, k::Shape{2, 5});
  k::Tensor y = m(x);
  CHECK(y.shape() == k::Shape{2, 1});
  CHECK(y.dtype() == k::float32);
}

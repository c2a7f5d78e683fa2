// Golden runs and behaviours of Sequential models: the guide's MNIST CNN
// summary, compile/fit/evaluate/predict, history keys, regularization losses.
#include <doctest/doctest.h>
#include <kiln/kiln.h>

#include <cmath>
#include <sstream>
#include "guide_cnn.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_sequential {

namespace k = kiln;
namespace L = kiln::layers;

namespace {
k::Sequential guide_cnn() { return k::examples::guide_cnn(); }
}  // namespace

TEST_CASE("summary of the guide's MNIST CNN matches tf.keras") {
  k::clear_session();
  auto model = guide_cnn();
  const std::string expected =
      "Model: \"sequential\"\n"
      "_________________________________________________________________\n"
      " Layer (type)                Output Shape              Param #   \n"
      "=================================================================\n"
      " conv2d (Conv2D)             (None, 26, 26, 32)        320       \n"
      "                                                                 \n"
      " max_pooling2d (MaxPooling2D  (None, 13, 13, 32)       0         \n"
      " )                                                               \n"
      "                                                                 \n"
      " flatten (Flatten)           (None, 5408)              0         \n"
      "                                                                 \n"
      " dropout (Dropout)           (None, 5408)              0         \n"
      "                                                                 \n"
      " dense (Dense)               (None, 64)                346176    \n"
      "                                                                 \n"
      " batch_normalization (BatchN  (None, 64)               256       \n"
      " ormalization)                                                   \n"
      "                                                                 \n"
      " dense_1 (Dense)             (None, 10)                650       \n"
      "                                                                 \n"
      "=================================================================\n"
      "Total params: 347,402\n"
      "Trainable params: 347,274\n"
      "Non-trainable params: 128\n"
      "_________________________________________________________________\n";
  CHECK(model.summary_string() == expected);
  CHECK(model.count_params() == 347402);
  CHECK(model.layers().size() == 7);
  CHECK(model.get_layer("dense_1")->count_params() == 650);
  CHECK_THROWS_AS(model.get_layer("nope"), k::ValueError);
}

TEST_CASE("model.losses holds the L2 penalty of the conv kernel") {
  k::clear_session();
  auto model = guide_cnn();
  auto losses = model.losses();
  REQUIRE(losses.size() == 1);
  auto kernel = model.get_layer("conv2d")->weights()[0];
  double expected = 0.02 * k::sum(k::square(kernel.value())).item<double>();
  CHECK(losses[0].item<double>() == doctest::Approx(expected).epsilon(1e-5));
}

TEST_CASE("history keys follow the names given to metrics") {
  k::clear_session();
  k::random::set_seed(1);
  k::Sequential model({L::Input({4}), L::Dense(3)});
  model.compile({.optimizer = "sgd",
                 .loss = "sparse_categorical_crossentropy",
                 .metrics = {"acc", "accuracy", k::metrics::SparseCategoricalAccuracy({.name = "my_accuracy"})}});
  k::Tensor x = k::random::normal({16, 4});
  k::Tensor y = k::Tensor(std::vector<int64_t>{0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0}, k::Shape{16});
  auto h = model.fit(x, y, {.batch_size = 8, .epochs = 2, .verbose = 0, .validation_split = 0.25});
  std::vector<std::string> expected = {"loss", "acc", "accuracy", "my_accuracy",
                                       "val_loss", "val_acc", "val_accuracy", "val_my_accuracy"};
  CHECK(h.keys() == expected);
  CHECK(h["loss"].size() == 2);
  // The three accuracies measure the same thing.
  CHECK(h["acc"][1] == h["accuracy"][1]);
  CHECK(h["acc"][1] == h["my_accuracy"][1]);
}

TEST_CASE("linear regression through fit logs each epoch's loss before the update") {
  // The guide: y = 3x + 2 + noise, W=5, b=0, SGD 0.1, MSE, full batch.
  k::clear_session();
  k::random::set_seed(7);
  const int64_t n = 201;
  k::Tensor x = k::linspace(-2, 2, n);
  k::Tensor noise = k::random::normal({n});
  k::Tensor y = x * 3.0 + 2.0 + noise;
  k::Sequential model({L::Input({1}), L::Dense(1, {.kernel_initializer = k::initializers::Constant(5.0)})});
  model.compile({.optimizer = k::optimizers::SGD({.learning_rate = 0.1}), .loss = "mse"});
  auto X = k::reshape(x, {n, 1}), Y = k::reshape(y, {n, 1});
  auto h = model.fit(X, Y, {.batch_size = n, .epochs = 10, .verbose = 0, .shuffle = false});
  // Reproduce by hand: loss at the weights *before* each update.
  double W = 5, b = 0;
  auto xv = x.to_vector<double>(), yv = y.to_vector<double>();
  for (int e = 0; e < 10; ++e) {
    double loss = 0, gw = 0, gb = 0;
    for (int64_t i = 0; i < n; ++i) {
      double err = W * xv[i] + b - yv[i];
      loss += err * err;
      gw += 2 * err * xv[i];
      gb += 2 * err;
    }
    CHECK(h["loss"][e] == doctest::Approx(loss / n).epsilon(1e-4));
    W -= 0.1 * gw / n;
    b -= 0.1 * gb / n;
  }
  auto w = model.get_weights();
  CHECK(w[0].item<double>() == doctest::Approx(W).epsilon(1e-4));
  CHECK(w[1].item<double>() == doctest::Approx(b).epsilon(1e-4));
  // The losses fall towards the noise floor, as in the guide's 6.58 -> 0.94.
  for (int e = 1; e < 10; ++e) CHECK(h["loss"][e] < h["loss"][e - 1]);
}

TEST_CASE("BatchNormalization and Dropout behave differently in training and inference") {
  k::clear_session();
  k::random::set_seed(3);
  k::Sequential model({L::Input({8}), L::Dropout(0.5), L::BatchNormalization()});
  k::Tensor x = k::random::normal({32, 8}, 2.0, 3.0);
  k::Tensor a = model(x, false), b = model(x, false);
  CHECK(k::max(k::abs(a - b)).item<float>() == 0.0f);
  k::Tensor t = model(x, true);
  CHECK(k::max(k::abs(a - t)).item<float>() > 0.1f);
  // Training-mode output is normalised per feature.
  CHECK(std::abs(k::mean(t).item<float>()) < 1e-3);
}

TEST_CASE("evaluate returns loss then metrics in compile order; predict shapes") {
  k::clear_session();
  k::random::set_seed(5);
  k::Sequential model({L::Input({4}), L::Dense(3, {.activation = "softmax"})});
  model.compile({.optimizer = "adam", .loss = "sparse_categorical_crossentropy", .metrics = {"accuracy"}});
  k::Tensor x = k::random::normal({10, 4});
  k::Tensor y = k::Tensor(std::vector<int64_t>{0, 1, 2, 0, 1, 2, 0, 1, 2, 0}, k::Shape{10});
  auto r = model.evaluate(x, y, {.verbose = 0});
  REQUIRE(r.size() == 2);
  k::Tensor p = model.predict(x, {.batch_size = 4});
  CHECK(p.shape() == k::Shape{10, 3});
  auto direct = k::losses::SparseCategoricalCrossentropy()(y, p);
  CHECK(r[0] == doctest::Approx(direct.item<float>()).epsilon(1e-5));
  auto acc = k::mean(k::cast(k::equal(k::argmax(p, -1), y), k::float32)).item<float>();
  CHECK(r[1] == doctest::Approx(acc));
  auto logs = model.train_on_batch(x, y);
  CHECK(logs.contains("loss"));
  CHECK(model.optimizer()->iterations() == 1);
}

TEST_CASE("bad input gives clear errors") {
  k::clear_session();
  k::Sequential model({L::Input({4}), L::Dense(3)});
  model.compile({.optimizer = "adam", .loss = k::losses::SparseCategoricalCrossentropy({.from_logits = true})});
  k::Tensor x = k::random::normal({10, 4});
  k::Tensor y = k::Tensor(std::vector<int64_t>{0, 1, 2, 0, 1, 2, 0, 1, 2, 7}, k::Shape{10});
  SUBCASE("wrong input shape") {
    auto bad = k::random::normal({10, 5});
    CHECK_THROWS_WITH_AS(model.predict(bad), doctest::Contains("(10, 5)"), k::ShapeError);
  }
  SUBCASE("labels out of range") {
    CHECK_THROWS_WITH_AS(model.fit(x, y, {.verbose = 0}), doctest::Contains("7"), k::ValueError);
  }
  SUBCASE("x and y of different lengths") {
    auto y9 = k::slice(y, {k::Slice(0, 9)});
    CHECK_THROWS_WITH_AS(model.fit(x, y9, {.verbose = 0}), doctest::Contains("'x' sizes: 10; 'y' sizes: 9"), k::ValueError);
  }
  SUBCASE("empty dataset") {
    auto x0 = k::zeros({0, 4});
    auto y0 = k::zeros({0}, k::int64);
    CHECK_THROWS_AS(model.fit(x0, y0, {.verbose = 0}), k::ValueError);
    CHECK_THROWS_AS(model.fit(k::Dataset(), {.verbose = 0}), k::ValueError);
  }
  SUBCASE("unknown names") {
    k::Sequential m2({L::Input({4}), L::Dense(3)});
    CHECK_THROWS_WITH_AS(m2.compile({.optimizer = "adamm", .loss = "mse"}), doctest::Contains("adam"), k::NotFoundError);
    CHECK_THROWS_WITH_AS(m2.compile({.optimizer = "adam", .loss = "msee"}), doctest::Contains("mse"), k::NotFoundError);
    CHECK_THROWS_WITH_AS(L::Dense(3, {.activation = "rleu"}), doctest::Contains("relu"), k::NotFoundError);
  }
  SUBCASE("Keras's input-spec message") {
    k::Sequential m3({L::Input({5408}), L::Dense(64)});
    CHECK_THROWS_WITH(m3(k::zeros({64, 100})),
                      doctest::Contains("expected axis -1 of input shape to have value 5408, but received input with shape (64, 100)"));
  }
}

TEST_CASE("progress bar prints the tf.keras format") {
  k::clear_session();
  k::random::set_seed(11);
  k::Sequential model({L::Input({4}), L::Dense(2)});
  model.compile({.optimizer = "sgd", .loss = "mse"});
  std::ostringstream out;
  auto bar = std::make_shared<k::ProgbarLogger>();
  bar->set_stream(&out, false);
  model.fit(k::random::normal({10, 4}), k::random::normal({10, 2}), {.batch_size = 2, .epochs = 2, .callbacks = {bar}});
  std::string s = out.str();
  CHECK(s.find("Epoch 1/2\n5/5 [==============================] - ") == 0);
  CHECK(s.find("/step - loss: ") != std::string::npos);
  CHECK(s.find("Epoch 2/2\n") != std::string::npos);
  // Not a terminal: exactly one bar line per epoch.
  CHECK(std::count(s.begin(), s.end(), '\n') == 4);
}

TEST_CASE("fit with y of the wrong width names the loss and both shapes") {
  k::Sequential m({L::Input({4}), L::Dense(3)});
  m.compile({.optimizer = "sgd", .loss = "mean_squared_error"});
  std::string msg;
  try {
    m.fit(k::ones({8, 4}), k::ones({8, 5}), {.batch_size = 8, .epochs = 1, .verbose = 0});
  } catch (const k::ShapeError& e) {
    msg = e.what();
  }
  CHECK_MESSAGE(msg.find("Loss 'mean_squared_error'") != std::string::npos, msg);
  CHECK_MESSAGE(msg.find("y_true of shape (8, 5)") != std::string::npos, msg);
  CHECK_MESSAGE(msg.find("y_pred of shape (8, 3)") != std::string::npos, msg);
}

}  // namespace test_sequential

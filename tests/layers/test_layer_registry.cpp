// The layer registry: unknown names, Keras 3 and tf.keras 2 config forms.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "kiln/core/error.h"
#include "kiln/nn/input_layer.h"
#include "kiln/layers.h"
#include "kiln/ops/ops.h"

namespace k = kiln;
namespace L = kiln::layers;
using k::Config;

TEST_CASE("unknown layer class") {
  CHECK_THROWS_AS(L::from_config(Config{{"class_name", "Foo"}, {"config", Config::object()}}), k::NotFoundError);
  try {
    L::from_config(Config{{"class_name", "Dnse"}, {"config", Config::object()}});
    FAIL("expected NotFoundError");
  } catch (const k::NotFoundError& e) {
    std::string m = e.what();
    CHECK(m.find("Unknown layer") != std::string::npos);
    CHECK(m.find("'Dnse'") != std::string::npos);
    CHECK(m.find("'Dense'") != std::string::npos);
  }
  CHECK_THROWS_AS(L::from_config(Config{{"config", Config::object()}}), k::ValueError);
}

TEST_CASE("Dense config: Keras 3 keys and serialized objects") {
  L::Dense d(64, {.activation = "relu", .kernel_regularizer = k::regularizers::L2(0.02), .name = "fc"});
  Config c = d->get_config();
  CHECK(c["name"] == "fc");
  CHECK(c["trainable"] == true);
  CHECK(c["dtype"] == "float32");
  CHECK(c["units"] == 64);
  CHECK(c["activation"] == "relu");
  CHECK(c["use_bias"] == true);
  CHECK(c["kernel_initializer"] == Config::parse(R"({"module": "keras.initializers", "class_name": "GlorotUniform",
                                                     "config": {"seed": null}, "registered_name": null})"));
  CHECK(c["kernel_regularizer"] == Config::parse(R"({"module": "keras.regularizers", "class_name": "L2",
                                                     "config": {"l2": 0.02}, "registered_name": null})"));
  CHECK(c["bias_regularizer"].is_null());
  CHECK(c["kernel_constraint"].is_null());
  Config s = L::serialize(*d);
  CHECK(s["module"] == "keras.layers");
  CHECK(s["class_name"] == "Dense");
}

TEST_CASE("tf.keras 2 and Keras 3 configs build layers") {
  // Keras 3 Dense with a DTypePolicy object.
  auto dense = L::from_config(Config::parse(R"({"module": "keras.layers", "class_name": "Dense", "config": {
      "name": "dense", "trainable": true,
      "dtype": {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}, "registered_name": null},
      "units": 64, "activation": "relu", "use_bias": true,
      "kernel_initializer": {"module": "keras.initializers", "class_name": "GlorotUniform", "config": {"seed": null}, "registered_name": null},
      "bias_initializer": {"module": "keras.initializers", "class_name": "Zeros", "config": {}, "registered_name": null},
      "kernel_regularizer": null, "bias_regularizer": null, "kernel_constraint": null, "bias_constraint": null},
      "registered_name": null, "build_config": {"input_shape": [null, 1600]}})"));
  CHECK(dense->name() == "dense");
  CHECK((*dense)(k::ones({2, 1600})).shape() == k::Shape{2, 64});

  // tf.keras 2.10 Conv2D with batch_input_shape (first layer of a Sequential).
  auto conv = L::from_config(Config::parse(R"({"class_name": "Conv2D", "config": {"name": "conv2d", "trainable": true,
      "batch_input_shape": [null, 28, 28, 1], "dtype": "float32", "filters": 16, "kernel_size": [5, 5], "strides": [1, 1],
      "padding": "same", "data_format": "channels_last", "dilation_rate": [1, 1], "groups": 1, "activation": "linear",
      "use_bias": true, "kernel_initializer": {"class_name": "GlorotUniform", "config": {"seed": null}},
      "bias_initializer": {"class_name": "Zeros", "config": {}}, "kernel_regularizer": null, "bias_regularizer": null,
      "activity_regularizer": null, "kernel_constraint": null, "bias_constraint": null}})"));
  REQUIRE(conv->declared_input_shape.has_value());
  CHECK(*conv->declared_input_shape == k::Shape{k::None, 28, 28, 1});
  CHECK(conv->compute_output_shape(k::Shape{k::None, 28, 28, 1}) == k::Shape{k::None, 28, 28, 16});
  CHECK(conv->get_config()["kernel_size"] == Config::array({5, 5}));
  CHECK(conv->get_config()["batch_input_shape"] == Config::parse("[null, 28, 28, 1]"));

  // tf.keras 2.2.4 BatchNormalization: axis as a list, dtype inside initializer configs.
  auto bn = L::from_config(Config::parse(R"({"class_name": "BatchNormalization", "config": {"name": "batch_normalization",
      "trainable": true, "dtype": "float32", "axis": [2], "momentum": 0.99, "epsilon": 0.001, "center": true, "scale": true,
      "beta_initializer": {"class_name": "Zeros", "config": {"dtype": "float32"}},
      "gamma_initializer": {"class_name": "Ones", "config": {"dtype": "float32"}},
      "moving_mean_initializer": {"class_name": "Zeros", "config": {"dtype": "float32"}},
      "moving_variance_initializer": {"class_name": "Ones", "config": {"dtype": "float32"}},
      "beta_regularizer": null, "gamma_regularizer": null, "beta_constraint": null, "gamma_constraint": null}})"));
  (*bn)(k::ones({2, 24, 10}));
  REQUIRE(bn->weights().size() == 4);
  CHECK(bn->weights()[0].shape() == k::Shape{10});
  CHECK(bn->get_config()["axis"] == 2);

  // Pooling, Dropout, Flatten, Activation as tf.keras writes them.
  auto mp = L::from_config(Config::parse(R"({"class_name": "MaxPooling2D", "config": {"name": "max_pooling2d",
      "trainable": true, "dtype": "float32", "pool_size": [2, 2], "padding": "valid", "strides": [2, 2], "data_format": "channels_last"}})"));
  CHECK(mp->compute_output_shape(k::Shape{k::None, 28, 28, 16}) == k::Shape{k::None, 14, 14, 16});
  auto dr = L::from_config(Config::parse(R"({"class_name": "Dropout", "config": {"name": "dropout", "trainable": true,
      "dtype": "float32", "rate": 0.25, "noise_shape": null, "seed": null}})"));
  CHECK(dr->get_config()["rate"] == 0.25);
  auto act = L::from_config(Config::parse(R"({"class_name": "Activation", "config": {"name": "activation", "trainable": true,
      "dtype": "float32", "activation": "relu"}})"));
  k::Tensor r = (*act)(k::Tensor({-1.f, 2.f}));
  CHECK(r.to_vector<float>() == std::vector<float>{0.f, 2.f});
  auto lrelu = L::from_config(Config::parse(R"({"class_name": "LeakyReLU", "config": {"name": "leaky_re_lu", "alpha": 0.1}})"));
  CHECK(lrelu->get_config()["negative_slope"] == doctest::Approx(0.1));
}

TEST_CASE("InputLayer configs") {
  auto k3 = L::from_config(Config::parse(R"({"class_name": "InputLayer", "config": {"batch_shape": [null, 28, 28, 1],
      "dtype": "float32", "sparse": false, "ragged": false, "name": "input_layer"}})"));
  auto in3 = std::dynamic_pointer_cast<k::InputLayerImpl>(k3);
  REQUIRE(in3);
  CHECK(in3->batch_shape() == k::Shape{k::None, 28, 28, 1});
  CHECK(in3->name() == "input_layer");
  auto k2 = L::from_config(Config::parse(R"({"class_name": "InputLayer", "config": {"batch_input_shape": [null, 784],
      "dtype": "float32", "sparse": false, "ragged": false, "name": "dense_input"}})"));
  CHECK(std::dynamic_pointer_cast<k::InputLayerImpl>(k2)->batch_shape() == k::Shape{k::None, 784});
  // The handle converts to the layer pointer Sequential takes.
  L::Input in({3}, {.name = "x"});
  k::LayerPtr p = in;
  CHECK(p->class_name() == "InputLayer");
}

TEST_CASE("custom registrations and Lambda") {
  L::register_layer("MyDense", [](const Config& c) -> k::LayerPtr { return L::Dense(c.at("n").get<int>()).ptr(); });
  auto l = L::from_config(Config{{"class_name", "MyDense"}, {"config", {{"n", 3}}}});
  CHECK((*l)(k::ones({1, 2})).shape() == k::Shape{1, 3});
  auto names = L::registered_names();
  CHECK(std::find(names.begin(), names.end(), "Conv2D") != names.end());
  L::Lambda lam([](const k::Tensor& t) { return t; }, {.name = "ident"});
  CHECK_THROWS_AS(L::from_config(Config{{"class_name", "Lambda"}, {"config", lam->get_config()}}), k::ValueError);
}

// Layer-specific values: hand-computed numbers, Keras figures and error texts.
#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "kiln/core/error.h"
#include "kiln/layers.h"
#include "kiln/ops/ops.h"
#include "kiln/nn/regularizers.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_layer_values {

namespace k = kiln;
namespace L = kiln::layers;

namespace {
void check_values(const k::Tensor& t, const std::vector<double>& expected, double eps = 1e-6) {
  auto got = t.to_vector<double>();
  REQUIRE(got.size() == expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("element ", i);
    CHECK(got[i] == doctest::Approx(expected[i]).epsilon(eps));
  }
}
k::Tensor iota(const k::Shape& s, double start = 1) {
  return k::reshape(k::range(start, start + static_cast<double>(s.num_elements()), 1, k::float32), s);
}
}  // namespace

TEST_CASE("Dense: known weights, activation, rank-3 input") {
  L::Dense d(2, {.activation = "relu"});
  k::Tensor x({{1.f, 1.f, 1.f}, {1.f, 0.f, -1.f}});
  d(x);
  d->set_weights({k::Tensor({{1.f, 2.f}, {3.f, 4.f}, {5.f, 6.f}}), k::Tensor({0.5f, -1.f})});
  // x·K = [[9, 12], [-4, -4]]; + b = [[9.5, 11], [-3.5, -5]]; relu.
  check_values(d(x), {9.5, 11, 0, 0});
  CHECK(d->kernel().shape() == k::Shape{3, 2});
  CHECK(d->bias().shape() == k::Shape{2});

  L::Dense d3(2);
  k::Tensor y3 = d3(k::ones({2, 4, 3}));
  CHECK(y3.shape() == k::Shape{2, 4, 2});
  CHECK(d3->compute_output_shape(k::Shape{k::None, 4, 3}) == k::Shape{k::None, 4, 2});
}

TEST_CASE("Dense: Keras input-spec error text") {
  k::clear_session();
  L::Dense d(64);
  d(k::zeros({64, 5408}));
  CHECK_THROWS_WITH_AS(d(k::zeros({64, 100})),
                       "Input 0 of layer 'dense' is incompatible with the layer: expected axis -1 of input shape to have "
                       "value 5408, but received input with shape (64, 100)",
                       k::ShapeError);
  CHECK_THROWS_AS(d(k::zeros({5408})), k::ShapeError);  // min_ndim=2
  CHECK_THROWS_AS(L::Dense(0), k::ValueError);
  CHECK_THROWS_AS(L::Dense(3, {.activation = "rleu"}), k::NotFoundError);
}

TEST_CASE("auto names follow construction order") {
  k::clear_session();
  L::Dense a(3), b(3);
  L::Conv2D c(2, 3);
  L::BatchNormalization bn;
  L::MaxPooling2D mp;
  L::ReLU r;
  L::GlobalAveragePooling2D g;
  L::Dense named(3, {.name = "head"});
  CHECK(a->name() == "dense");
  CHECK(b->name() == "dense_1");
  CHECK(c->name() == "conv2d");
  CHECK(bn->name() == "batch_normalization");
  CHECK(mp->name() == "max_pooling2d");
  CHECK(r->name() == "re_lu");
  CHECK(g->name() == "global_average_pooling2d");
  CHECK(named->name() == "head");
  b(k::ones({1, 4}));
  CHECK(b->weights()[0].path() == "dense_1/kernel");
}

TEST_CASE("regularizer penalties appear in losses(); the activity penalty is per sample, as in Keras 3") {
  L::Dense d(3, {.kernel_regularizer = k::regularizers::L2(0.02), .activity_regularizer = k::regularizers::L1(0.01)});
  k::Tensor x({{1.f, -2.f}, {0.5f, 3.f}});
  CHECK(d->losses().empty());
  k::Tensor y = d(x);
  auto losses = d->losses();
  REQUIRE(losses.size() == 2);
  double ksq = k::sum(k::square(d->kernel().value())).item<double>();
  CHECK(losses[0].item<double>() == doctest::Approx(0.02 * ksq).epsilon(1e-6));
  // Keras 3 divides the activity penalty by the batch size (2 here).
  CHECK(losses[1].item<double>() == doctest::Approx(0.01 * k::sum(k::abs(y)).item<double>() / 2).epsilon(1e-6));
}

TEST_CASE("Conv2D output shapes") {
  auto shape = [](L::Conv2D c, k::Shape in) { return c(k::zeros(in)).shape(); };
  CHECK(shape(L::Conv2D(32, 3), {1, 28, 28, 1}) == k::Shape{1, 26, 26, 32});
  CHECK(shape(L::Conv2D(32, 3, {.padding = "same"}), {1, 28, 28, 1}) == k::Shape{1, 28, 28, 32});
  CHECK(shape(L::Conv2D(8, 3, {.strides = 2}), {1, 28, 28, 1}) == k::Shape{1, 13, 13, 8});
  CHECK(shape(L::Conv2D(8, 3, {.strides = 2, .padding = "same"}), {1, 28, 28, 1}) == k::Shape{1, 14, 14, 8});
  CHECK(shape(L::Conv2D(8, 3, {.dilation_rate = 2}), {1, 28, 28, 1}) == k::Shape{1, 24, 24, 8});
  CHECK(shape(L::Conv2D(4, {5, 3}, {.strides = {2, 1}, .padding = "same"}), {2, 7, 7, 3}) == k::Shape{2, 4, 7, 4});
  CHECK(shape(L::Conv2D(4, 3, {.data_format = "channels_first"}), {2, 3, 7, 6}) == k::Shape{2, 4, 5, 4});
  L::Conv2D c(32, 3);
  CHECK(c->compute_output_shape(k::Shape{k::None, 28, 28, 1}) == k::Shape{k::None, 26, 26, 32});
  CHECK_THROWS_AS(L::Conv2D(4, 3)(k::zeros({1, 2, 2, 1})), k::ValueError);   // empty output
  CHECK_THROWS_AS(L::Conv2D(4, 3)(k::zeros({1, 5, 5})), k::ShapeError);      // rank 3
  CHECK_THROWS_AS(L::Conv2D(4, 3, {.padding = "full"}), k::ValueError);
  CHECK_THROWS_AS(L::Conv2D(3, 3, {.groups = 2}), k::ValueError);  // 3 filters, 2 groups
}

TEST_CASE("Conv2D hand-computed values") {
  // x = 1..9 as a 3x3 image; kernel [[1, 2], [3, 4]], bias 1.
  k::Tensor x = iota({1, 3, 3, 1});
  L::Conv2D valid(1, 2);
  valid(x);
  valid->set_weights({k::reshape(k::Tensor({1.f, 2.f, 3.f, 4.f}), {2, 2, 1, 1}), k::Tensor({1.f})});
  // 1·1+2·2+4·3+5·4+1 = 38, then 48, 68, 78.
  check_values(valid(x), {38, 48, 68, 78});
  L::Conv2D same(1, 2, {.padding = "same"});
  same(x);
  same->set_weights(valid->get_weights());
  // TF pads the odd pixel at the bottom/right: the last window sees only x[2,2] = 9.
  k::Tensor y = same(x);
  CHECK(y.shape() == k::Shape{1, 3, 3, 1});
  check_values(y, {38, 48, 3 * 1 + 6 * 3 + 1, 68, 78, 6 * 1 + 9 * 3 + 1, 7 * 1 + 8 * 2 + 1, 8 * 1 + 9 * 2 + 1, 9 + 1});
  // groups=2 equals two independent convolutions on the channel halves.
  L::Conv2D g(2, 2, {.groups = 2, .use_bias = false});
  k::Tensor x2 = k::random::normal({1, 4, 4, 2});
  k::Tensor yg = g(x2);
  k::Tensor w = g->kernel().value();  // (2, 2, 1, 2)
  auto xs = k::split(x2, 2, 3);
  auto ws = k::split(w, 2, 3);
  k::Tensor expect = k::concat({k::conv2d(xs[0], ws[0]), k::conv2d(xs[1], ws[1])}, 3);
  check_values(yg, expect.to_vector<double>(), 1e-5);
  // channels_first equals channels_last on transposed data.
  L::Conv2D cl(3, 2), cf(3, 2, {.data_format = "channels_first"});
  k::Tensor xl = k::random::normal({2, 4, 5, 2});
  k::Tensor yl = cl(xl);
  cf(k::transpose(xl, {0, 3, 1, 2}));
  cf->set_weights(cl->get_weights());
  check_values(k::transpose(cf(k::transpose(xl, {0, 3, 1, 2})), {0, 2, 3, 1}), yl.to_vector<double>(), 1e-5);
}

TEST_CASE("Conv1D: causal values and kernel shape") {
  L::Conv1D c(1, 2, {.padding = "causal", .use_bias = false, .kernel_initializer = "ones"});
  k::Tensor y = c(k::reshape(k::Tensor({1.f, 2.f, 3.f}), {1, 3, 1}));
  check_values(y, {1, 3, 5});  // y[t] = x[t-1] + x[t], x[-1] = 0
  CHECK(c->kernel().shape() == k::Shape{2, 1, 1});
  L::Conv1D v(4, 3);
  CHECK(v(k::zeros({2, 10, 5})).shape() == k::Shape{2, 8, 4});
  CHECK(v->kernel().shape() == k::Shape{3, 5, 4});
}

TEST_CASE("pooling values") {
  k::Tensor x = iota({1, 4, 4, 1});  // 1..16
  check_values(L::MaxPooling2D()(x), {6, 8, 14, 16});
  check_values(L::AveragePooling2D()(x), {3.5, 5.5, 11.5, 13.5});
  // "same" 3x3 stride 1: the corner window holds 1, 2, 5, 6 (padding not counted).
  k::Tensor a = L::AveragePooling2D(3, {.strides = 1, .padding = "same"})(x);
  CHECK(a.shape() == k::Shape{1, 4, 4, 1});
  CHECK(a.to_vector<double>()[0] == doctest::Approx(3.5));
  CHECK(L::MaxPooling2D(2, {.padding = "same"})(iota({1, 5, 5, 1})).shape() == k::Shape{1, 3, 3, 1});
  CHECK(L::MaxPooling2D(3, {.strides = 2})(k::zeros({1, 7, 7, 2})).shape() == k::Shape{1, 3, 3, 2});
  k::Tensor s = k::reshape(k::Tensor({1.f, 3.f, 2.f, 5.f, 4.f}), {1, 5, 1});
  check_values(L::MaxPooling1D()(s), {3, 5});
  check_values(L::AveragePooling1D(2, {.strides = 1})(s), {2, 2.5, 3.5, 4.5});
  check_values(L::GlobalAveragePooling2D()(x), {8.5});
  check_values(L::GlobalMaxPooling2D()(x), {16});
  CHECK(L::GlobalMaxPooling2D({.keepdims = true})(x).shape() == k::Shape{1, 1, 1, 1});
  check_values(L::GlobalAveragePooling1D()(s), {3});
  CHECK(L::GlobalAveragePooling2D()(k::zeros({2, 3, 3, 5})).shape() == k::Shape{2, 5});
}

TEST_CASE("Dropout: identity at inference, inverted dropout in training") {
  L::Dropout d(0.25);
  k::Tensor x = k::ones({200, 100});
  CHECK(d(x).same_as(x));
  CHECK(d(x, false).to_vector<double>() == x.to_vector<double>());
  k::random::set_seed(7);
  auto v = d(x, true).to_vector<double>();
  std::size_t zeros = 0;
  for (double e : v) {
    if (e == 0) ++zeros;
    else CHECK(e == doctest::Approx(1.0 / 0.75));
  }
  CHECK(static_cast<double>(zeros) / v.size() == doctest::Approx(0.25).epsilon(0.08));
  // noise_shape (None, 1): whole rows are kept or dropped together.
  L::Dropout rows(0.5, {.noise_shape = k::Shape{k::None, 1}, .seed = 3});
  auto r = rows(k::ones({50, 4}), true).to_vector<double>();
  for (int i = 0; i < 50; ++i)
    for (int j = 1; j < 4; ++j) CHECK(r[i * 4 + j] == r[i * 4]);
  // A seeded layer is reproducible.
  L::Dropout s1(0.5, {.seed = 11}), s2(0.5, {.seed = 11});
  CHECK(s1(x, true).to_vector<double>() == s2(x, true).to_vector<double>());
  CHECK_THROWS_AS(L::Dropout(1.5), k::ValueError);
}

TEST_CASE("BatchNormalization: training vs inference and the moving statistics") {
  L::BatchNormalization bn;
  k::Tensor x({{1.f, 2.f}, {3.f, 6.f}});
  // Inference before any training: moving mean 0, variance 1 -> x / sqrt(1 + 1e-3).
  k::Tensor yi = bn(x, false);
  const double s = 1.0 / std::sqrt(1.001);
  check_values(yi, {1 * s, 2 * s, 3 * s, 6 * s});
  CHECK(bn->weights().size() == 4);
  CHECK(bn->trainable_variables().size() == 2);
  CHECK(bn->non_trainable_variables().size() == 2);
  CHECK(bn->weights()[2].path() == bn->name() + "/moving_mean");
  // Training: batch mean [2, 4], population variance [1, 4].
  k::Tensor yt = bn(x, true);
  check_values(yt, {-1 / std::sqrt(1.001), -2 / std::sqrt(4.001), 1 / std::sqrt(1.001), 2 / std::sqrt(4.001)});
  // moving = moving * 0.99 + batch * 0.01
  check_values(bn->moving_mean().value(), {0.02, 0.04});
  check_values(bn->moving_variance().value(), {0.99 + 0.01, 0.99 + 0.04});
  bn(x, true);
  check_values(bn->moving_mean().value(), {0.02 * 0.99 + 0.02, 0.04 * 0.99 + 0.04});

  L::BatchNormalization bn9({.momentum = 0.9, .epsilon = 0.0 + 1e-5});
  bn9(x, true);
  check_values(bn9->moving_mean().value(), {0.2, 0.4});
  check_values(bn9->moving_variance().value(), {0.9 + 0.1, 0.9 + 0.4});
  // After those updates inference uses them: (x - 0.2) / sqrt(1.0 + 1e-5) for feature 0.
  check_values(bn9(x, false), {(1 - 0.2) / std::sqrt(1.0 + 1e-5), (2 - 0.4) / std::sqrt(1.3 + 1e-5),
                               (3 - 0.2) / std::sqrt(1.0 + 1e-5), (6 - 0.4) / std::sqrt(1.3 + 1e-5)});

  // A frozen layer runs in inference mode even when training=true (Keras 3).
  L::BatchNormalization frozen({.trainable = false});
  check_values(frozen(x, true), yi.to_vector<double>());
  check_values(frozen->moving_mean().value(), {0, 0});

  // axis=1 on (N, C, H, W): one statistic per channel.
  L::BatchNormalization cf({.axis = 1});
  cf(k::random::normal({2, 3, 4, 4}), true);
  CHECK(cf->gamma().shape() == k::Shape{3});
  CHECK_THROWS_AS(cf(k::zeros({2, 4, 4, 4})), k::ShapeError);
}

TEST_CASE("LayerNormalization values") {
  L::LayerNormalization ln;
  k::Tensor x({{1.f, 2.f, 3.f}});
  const double d = std::sqrt(2.0 / 3.0 + 1e-3);
  check_values(ln(x), {-1 / d, 0, 1 / d}, 1e-5);
}

TEST_CASE("activation layers") {
  k::Tensor x({-1.f, 0.5f, 2.f, 10.f});
  check_values(L::Activation("relu")(x), {0, 0.5, 2, 10});
  check_values(L::ReLU()(x), {0, 0.5, 2, 10});
  check_values(L::ReLU({.max_value = 6.0})(x), {0, 0.5, 2, 6});
  // threshold 1, slope 0.1: below the threshold 0.1 * (x - 1).
  check_values(L::ReLU({.max_value = 6.0, .negative_slope = 0.1, .threshold = 1.0})(x), {-0.2, -0.05, 2, 6});
  check_values(L::LeakyReLU()(x), {-0.3, 0.5, 2, 10});
  check_values(L::ELU()(x), {std::exp(-1.0) - 1, 0.5, 2, 10});
  check_values(L::Softmax()(k::Tensor({{4.f, 5.f}, {10.f, 1.f}})), {0.26894143, 0.73105854, 0.99987662, 1.2339458e-04}, 1e-5);
  L::PReLU p({.alpha_initializer = k::initializers::Constant(0.25)});
  check_values(p(k::Tensor({{-2.f, 3.f}})), {-0.5, 3});
  CHECK(p->alpha().shape() == k::Shape{2});
}

TEST_CASE("reshaping layers") {
  k::Tensor x = iota({2, 2, 3});
  CHECK(L::Flatten()(x).shape() == k::Shape{2, 6});
  CHECK(L::Flatten()(k::zeros({4})).shape() == k::Shape{4, 1});
  // channels_first flattens in (H, W, C) order: for one example (C=2, H=1, W=3).
  k::Tensor cf = iota({1, 2, 1, 3});  // c0: 1 2 3, c1: 4 5 6
  check_values(L::Flatten({.data_format = "channels_first"})(cf), {1, 4, 2, 5, 3, 6});
  L::Reshape r({3, -1});
  CHECK(r(x).shape() == k::Shape{2, 3, 2});
  CHECK(r->compute_output_shape(k::Shape{k::None, 2, 3}) == k::Shape{k::None, 3, 2});
  CHECK_THROWS_AS(L::Reshape({4, 2})(x), k::ValueError);
  CHECK_THROWS_AS(L::Reshape({-1, -1}), k::ValueError);
  k::Tensor p = L::Permute({2, 1})(x);
  CHECK(p.shape() == k::Shape{2, 3, 2});
  check_values(p[0], {1, 4, 2, 5, 3, 6});
  CHECK_THROWS_AS(L::Permute({1, 3}), k::ValueError);
  k::Tensor rv = L::RepeatVector(3)(k::Tensor({{1.f, 2.f}}));
  CHECK(rv.shape() == k::Shape{1, 3, 2});
  check_values(rv, {1, 2, 1, 2, 1, 2});
  k::Tensor z = L::ZeroPadding2D(1)(k::ones({1, 1, 1, 1}));
  CHECK(z.shape() == k::Shape{1, 3, 3, 1});
  check_values(z, {0, 0, 0, 0, 1, 0, 0, 0, 0});
  CHECK(L::ZeroPadding2D({1, 0}, {2, 3})(k::ones({1, 2, 2, 1})).shape() == k::Shape{1, 3, 7, 1});
}

TEST_CASE("Embedding") {
  L::Embedding e(4, 2);
  k::Tensor idx({{0, 3}, {1, 1}});
  k::Tensor y = e(idx);
  CHECK(y.shape() == k::Shape{2, 2, 2});
  auto w = e->embeddings().value().to_vector<double>();
  for (double v : w) CHECK(std::abs(v) <= 0.05);
  e->set_weights({k::Tensor({{0.f, 1.f}, {2.f, 3.f}, {4.f, 5.f}, {6.f, 7.f}})});
  check_values(e(idx), {0, 1, 6, 7, 2, 3, 2, 3});
  check_values(e(k::fill({1, 1}, 2.0)), {4, 5});  // float indices are cast
  CHECK_THROWS_AS(e(k::fill({1, 1}, 4.0, k::int32)), k::IndexError);
}

TEST_CASE("Lambda and symbolic calls") {
  k::Tensor in = k::Input({3});
  k::Tensor h = L::Dense(4)(in);
  CHECK(h.is_symbolic());
  CHECK(h.shape() == k::Shape{k::None, 4});
  k::Tensor sq = L::Lambda([](const k::Tensor& t) { return k::concat({t, t}, 1); })(h);
  CHECK(sq.shape() == k::Shape{k::None, 8});
  k::Tensor c = L::Conv2D(8, 3)(L::Input({28, 28, 1}));
  CHECK(c.shape() == k::Shape{k::None, 26, 26, 8});
  k::Tensor f = L::Flatten()(L::MaxPooling2D()(c));
  CHECK(f.shape() == k::Shape{k::None, 13 * 13 * 8});
  CHECK(L::Reshape({-1, 8})(f).shape() == k::Shape{k::None, 169, 8});
  L::Input li({5}, {.name = "features"});
  CHECK(li->name() == "features");
  CHECK(li.batch_shape() == k::Shape{k::None, 5});
  CHECK(L::Dense(2)(li).shape() == k::Shape{k::None, 2});
}

TEST_CASE("the guide's MNIST CNN layers: shapes and parameter counts") {
  // Conv2D(32, 3, relu, l2(0.02)) -> MaxPooling2D -> Flatten -> Dropout(0.1) -> Dense(64, relu)
  // -> BatchNormalization -> Dense(10): 347,402 parameters, 128 of them non-trainable.
  L::Conv2D conv(32, 3, {.activation = "relu", .kernel_regularizer = k::regularizers::L2(0.02)});
  L::MaxPooling2D pool;
  L::Flatten flat;
  L::Dropout drop(0.1);
  L::Dense d1(64, {.activation = "relu"});
  L::BatchNormalization bn;
  L::Dense d2(10);
  k::Tensor x = k::Input({28, 28, 1});
  k::Tensor h = conv(x);
  CHECK(h.shape() == k::Shape{k::None, 26, 26, 32});
  h = flat(pool(h));
  CHECK(h.shape() == k::Shape{k::None, 5408});
  k::Tensor y = d2(bn(d1(drop(h))));
  CHECK(y.shape() == k::Shape{k::None, 10});
  CHECK(conv->count_params() == 320);
  CHECK(d1->count_params() == 346176);
  CHECK(bn->count_params() == 256);
  CHECK(d2->count_params() == 650);
  CHECK(conv->count_params() + d1->count_params() + bn->count_params() + d2->count_params() == 347402);
  CHECK(bn->non_trainable_variables().size() == 2);
  // A concrete batch through the same layers, in training mode.
  k::Tensor xb = k::random::uniform({4, 28, 28, 1});
  k::Tensor yb = d2(bn(d1(drop(flat(pool(conv(xb, true)), true), true), true), true), true);
  CHECK(yb.shape() == k::Shape{4, 10});
  CHECK(conv->losses().size() == 1);
}

TEST_CASE("integer inputs are cast for layers with float weights") {
  L::Dense d(2, {.kernel_initializer = "ones"});
  k::Tensor y = d(k::Tensor({{1, 2, 3}}));
  CHECK(y.dtype() == k::float32);
  check_values(y, {6, 6});
  // A float64 input to a float32 layer is computed in float32, as Keras autocasts.
  CHECK(L::Dense(2)(k::ones({1, 3}, k::float64)).dtype() == k::float32);
}

TEST_CASE("UpSampling1D repeats each step in place, as keras.ops.repeat(x, size, axis=1)") {
  k::Tensor x(std::vector<float>{1, 2, 3, 4, 5, 6}, k::Shape{1, 3, 2});  // steps (1,2), (3,4), (5,6)
  k::Tensor y = L::UpSampling1D(2)(x);
  CHECK(y.shape() == k::Shape{1, 6, 2});
  check_values(y, {1, 2, 1, 2, 3, 4, 3, 4, 5, 6, 5, 6});
  CHECK_THROWS_WITH_AS(L::UpSampling1D(0), "UpSampling1D: `size` must be a positive integer, got 0", k::ValueError);
  auto from_keras = L::from_config("UpSampling1D", {{"name", "up"}, {"size", 3}, {"trainable", true}});
  CHECK(from_keras->compute_output_shape(k::Shape{k::None, 4, 2}) == k::Shape{k::None, 12, 2});
  CHECK(L::from_config("UpSampling1D", k::Config::object())->get_config()["size"] == 2);  // Keras's default
}

TEST_CASE("generated from_config: a missing required argument or a wrong type names the class and the key") {
  CHECK_THROWS_WITH_AS(L::from_config("Dense", {{"activation", "relu"}}),
                       doctest::Contains("Dense.from_config: missing required key 'units'"), k::ValueError);
  CHECK_THROWS_WITH_AS(L::from_config("Conv2D", {{"filters", 4}}),
                       doctest::Contains("Conv2D.from_config: missing required key 'kernel_size'"), k::ValueError);
  CHECK_THROWS_WITH_AS(L::from_config("Dense", {{"units", 3}, {"use_bias", "yes"}}),
                       doctest::Contains("Dense.from_config: 'use_bias' must be a bool"), k::ValueError);
  // Keras 1's key, upgraded by Dense's own hook.
  CHECK(L::from_config("Dense", {{"output_dim", 5}})->compute_output_shape(k::Shape{2, 3}) == k::Shape{2, 5});
}

}  // namespace test_layer_values

// The image augmentation layers in training mode: what each transform must give
// (flips are flips, a zero factor is the identity, a half turn reverses both axes,
// brightness stays in value_range), reproducible seeds, and gradients with respect to
// the images (a fresh seeded layer per evaluation, so each draws the same transform).
// Keras's own values for one-value factor ranges are compared by keras_oracle_layers.
#include <doctest/doctest.h>

#include <functional>
#include <nlohmann/json.hpp>

#include "kiln/autodiff/gradient_check.h"
#include "kiln/core/error.h"
#include "kiln/layers.h"
#include "kiln/ops/ops.h"
#include "test_util.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_random_image_values {

namespace k = kiln;
namespace L = kiln::layers;

namespace {
double max_diff(const k::Tensor& a, const k::Tensor& b) { return k::max(k::abs(a - b)).item<double>(); }

k::Tensor reversed(const k::Tensor& x, int axis) {
  const int64_t n = x.shape()[axis];
  std::vector<int32_t> idx;
  for (int64_t j = n - 1; j >= 0; --j) idx.push_back(static_cast<int32_t>(j));
  return k::gather(x, k::Tensor(idx, k::Shape{n}), axis);
}

void check_training_gradient(const char* label, const std::function<k::LayerPtr()>& make, const k::Shape& shape) {
  k::random::set_seed(11);
  const k::Tensor x = k::random::normal(shape, 0.0, 1.0, k::float64);
  auto r = k::check_gradients([&](const std::vector<k::Tensor>& in) { return (*make())(in[0], true); }, {x});
  CHECK_MESSAGE(r.ok, label, ": ", r.report);
}
}  // namespace

TEST_CASE("RandomFlip in training: each image is itself or its flip; seeds repeat") {
  k::random::set_seed(5);
  const k::Tensor x = k::random::normal({32, 3, 4, 2});
  for (const char* mode : {"horizontal", "vertical", "horizontal_and_vertical"}) {
    INFO(mode);
    const std::string m = mode;
    const k::Tensor y = L::RandomFlip(m, {.seed = 7})(x, true);
    const k::Tensor flipped = m == "horizontal" ? reversed(x, 2) : m == "vertical" ? reversed(x, 1) : reversed(reversed(x, 1), 2);
    int kept = 0, flips = 0;
    for (int64_t i = 0; i < 32; ++i) {
      const bool same = max_diff(y[i], x[i]) == 0, flip = max_diff(y[i], flipped[i]) == 0;
      CHECK((same || flip));
      kept += same;
      flips += flip;
    }
    CHECK(kept > 4);  // both outcomes occur (probability 1/2 each)
    CHECK(flips > 4);
    CHECK(max_diff(y, L::RandomFlip(m, {.seed = 7})(x, true)) == 0);
  }
  CHECK(max_diff(L::RandomFlip()(x, false), x) == 0);  // inference: the identity
  CHECK(max_diff(L::RandomFlip()(x), x) > 0);  // called directly it augments, as in Keras 3
  const k::Tensor one = k::random::normal({3, 4, 2});  // one image, channels_first
  const k::Tensor y1 = L::RandomFlip("vertical", {.seed = 1, .data_format = "channels_first"})(one, true);
  CHECK((max_diff(y1, one) == 0 || max_diff(y1, reversed(one, 1)) == 0));
  CHECK_THROWS_AS(L::RandomFlip("diagonal"), k::ValueError);
}

TEST_CASE("RandomRotation, RandomZoom, RandomTranslation in training: exact cases") {
  k::random::set_seed(6);
  const k::Tensor x = k::random::normal({2, 5, 4, 3});
  CHECK(max_diff(L::RandomRotation(0.0)(x, true), x) < 1e-6);
  CHECK(max_diff(L::RandomZoom(0.0)(x, true), x) < 1e-6);
  CHECK(max_diff(L::RandomTranslation(0.0, 0.0)(x, true), x) < 1e-6);
  // A half turn about the centre reverses both axes.
  CHECK(max_diff(L::RandomRotation({0.5, 0.5})(x, true), reversed(reversed(x, 1), 2)) < 1e-5);
  // A shift of H/4 = 1 row down with fill "constant": row 0 is fill_value, row i is input row i - 1.
  const k::Tensor img = k::reshape(k::range(0.0, 16.0, 1.0, k::float32), {1, 4, 4, 1});
  const k::Tensor t = L::RandomTranslation({0.25, 0.25}, 0.0, {.fill_mode = "constant", .fill_value = -1.0})(img, true);
  kiln_test::check_values(t, {-1, -1, -1, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 1e-5);
  // The same with "reflect": row -1 reads row 0.
  const k::Tensor r = L::RandomTranslation({0.25, 0.25}, 0.0)(img, true);
  kiln_test::check_values(r, {0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 1e-5);
  // A random rotation stays reproducible with a seed and differs between calls.
  L::RandomRotation a(0.2, {.seed = 4}), b(0.2, {.seed = 4});
  const k::Tensor a1 = a(x, true), b1 = b(x, true), a2 = a(x, true);
  CHECK(max_diff(a1, b1) == 0);
  CHECK(max_diff(a1, a2) > 0);
  CHECK(max_diff(a(x, false), x) == 0);  // inference
  // One image (rank 3) is transformed as a batch of one: the same seed, the same draws.
  const k::Tensor one = x[0];
  CHECK(max_diff(L::RandomRotation(0.2, {.seed = 4})(one, true), L::RandomRotation(0.2, {.seed = 4})(k::expand_dims(one, 0), true)[0]) == 0);
  CHECK(max_diff(L::RandomZoom(0.3, std::nullopt, {.seed = 2, .data_format = "channels_first"})(one, true),
                 L::RandomZoom(0.3, std::nullopt, {.seed = 2, .data_format = "channels_first"})(k::expand_dims(one, 0), true)[0]) == 0);
  CHECK_THROWS_AS(L::RandomRotation(1.5), k::ValueError);
  CHECK_THROWS_AS(L::RandomRotation(0.1, {.fill_mode = "mirror"}), k::ValueError);
  CHECK_THROWS_AS(L::RandomZoom(-1.0), k::ValueError);  // (-1, 1]
  CHECK_THROWS_AS(L::RandomTranslation(0.1, {0.1, 0.2, 0.3}), k::ValueError);
}

TEST_CASE("RandomCrop: random windows in training, Keras's fixed window otherwise") {
  const k::Tensor img = k::reshape(k::range(0.0, 30.0, 1.0, k::float32), {1, 5, 6, 1});
  // Inference: Keras's window of the target aspect ratio, 5 x 3 from column 1, of which
  // the first 3 rows and 2 columns are taken (random_crop.py's slicing).
  const k::Tensor c = L::RandomCrop(3, 2)(img);
  CHECK(c.shape() == k::Shape{1, 3, 2, 1});
  kiln_test::check_values(c, {1, 2, 7, 8, 13, 14});
  L::RandomCrop rc(3, 2, {.seed = 2});
  for (int i = 0; i < 5; ++i) {
    const k::Tensor y = rc(img, true);
    const auto v = y.to_vector<float>();
    // A window: rows step by 6, columns by 1, inside the image.
    CHECK(v[1] == v[0] + 1);
    CHECK(v[2] == v[0] + 6);
    CHECK(static_cast<int>(v[0]) % 6 <= 4);
    CHECK(v[0] <= 2 * 6 + 4);  // start row <= 5 - 3, start column <= 6 - 2
  }
  CHECK(max_diff(L::RandomCrop(3, 2, {.seed = 8})(img, true), L::RandomCrop(3, 2, {.seed = 8})(img, true)) == 0);
  // Smaller than the target: the window, then a bilinear resize (Keras's values in keras_oracle_layers).
  CHECK(L::RandomCrop(4, 5)(k::ones({2, 3, 2}), true).shape() == k::Shape{4, 5, 2});
}

TEST_CASE("RandomContrast and RandomBrightness in training") {
  k::random::set_seed(8);
  const k::Tensor x = k::random::uniform({16, 3, 3, 2}, 0.0, 255.0);
  const k::Tensor y = L::RandomBrightness(0.5, {.seed = 3})(x, true);
  CHECK(k::min(y).item<float>() >= 0.f);
  CHECK(k::max(y).item<float>() <= 255.f);
  CHECK(max_diff(y, x) > 1);
  CHECK(max_diff(L::RandomBrightness(0.5)(x, false), x) == 0);
  // factor [-0.5, 0.5]: Keras 3.15 draws the contrast factor in [1.5, 1.5).
  const k::Tensor small = k::Tensor({{{{1.f}, {3.f}}}});  // (1, 1, 2, 1): mean 2
  kiln_test::check_values(L::RandomContrast({-0.5, 0.5})(small, true), {0.5, 3.5});
  kiln_test::check_values(L::RandomContrast({-0.5, 0.5}, {.value_range = {1, 3}})(small, true), {1, 3});
  // One value range of brightness: + 0.1 · (1 - (-1)) = 0.2, clipped to [-1, 1].
  kiln_test::check_values(L::RandomBrightness({0.1, 0.1}, {.value_range = {1, -1}})(k::Tensor({{{{0.5f}, {0.9f}}}}), true),
                          {0.7, 1.0});
  CHECK_THROWS_AS(L::RandomContrast(1.5), k::ValueError);
  CHECK_THROWS_AS(L::RandomBrightness(0.2, {.value_range = {0, 1, 2}}), k::ValueError);
}

TEST_CASE("RandomHue, RandomSaturation and RandomSharpness in training: Keras 3.15's values") {
  // (1, 2, 3, 3) RGB pixels; factors pinned (lower == upper) so the draws do not
  // matter (a hue shift of 0.5 either way is the same). Expected values printed
  // by Keras 3.15 (JAX) for the same layers and images.
  const k::Tensor x = k::reshape(k::Tensor(std::vector<float>{255, 0, 0, 0, 128, 255, 10, 200, 30, 50, 60, 70, 0, 0, 0,
                                                              255, 255, 255},
                                           k::Shape{18}),
                                 {1, 2, 3, 3});
  kiln_test::check_values(L::RandomHue({1.0, 1.0}, {.seed = 1})(x, true),
                          {0, 255, 255, 255, 127.0001297, 0, 200.0000153, 10.0000029, 180.0000916, 70, 60.0000076,
                           50.0000038, 0, 0, 0, 255, 255, 255},
                          1e-5);
  kiln_test::check_values(L::RandomSaturation({0.25, 0.25}, {.seed = 1})(x / 255.0, true),
                          {1, 0.6666667, 0.6666667, 0.6666667, 0.8339870, 1, 0.5359478, 0.7843137, 0.5620916, 0.2483660,
                           0.2614379, 0.2745098, 0, 0, 0, 1, 1, 1},
                          1e-5);
  kiln_test::check_values(L::RandomSharpness({0.25, 0.25}, {.seed = 1})(x, true),
                          {178.4615479, 7.2307692, 12.5, 21.9230766, 108.4230804, 190.1923065, 16.7307701, 153.1923065,
                           40.3846169, 44.4230766, 46.4615402, 58.2692299, 21.9230766, 24.7307701, 23.4615383,
                           176.9230804, 189.1538391, 187.5},
                          1e-5);
  // Inference is the identity; configs write the factor as Keras does, a (lower, upper) pair.
  CHECK(max_diff(L::RandomHue(0.3)(x, false), x) == 0);
  CHECK(L::RandomHue(0.3)->get_config()["factor"] == nlohmann::json::parse("[0.0, 0.3]"));
  CHECK_THROWS_AS(L::RandomHue(1.5), k::ValueError);
  CHECK_THROWS_AS(L::RandomSharpness(0.2, {.value_range = {0}}), k::ValueError);
}

TEST_CASE("image augmentations in training are differentiable with respect to the images") {
  check_training_gradient("RandomFlip", [] { return L::RandomFlip("horizontal_and_vertical", {.seed = 1, .dtype = k::float64}).ptr(); }, {3, 3, 4, 2});
  check_training_gradient("RandomRotation bilinear reflect",
                          [] { return L::RandomRotation(0.3, {.seed = 2, .dtype = k::float64}).ptr(); }, {2, 5, 4, 2});
  check_training_gradient("RandomZoom constant",
                          [] { return L::RandomZoom(0.4, L::Factor(0.3), {.fill_mode = "constant", .seed = 3, .dtype = k::float64}).ptr(); },
                          {2, 4, 5, 1});
  check_training_gradient("RandomTranslation wrap",
                          [] { return L::RandomTranslation(0.3, 0.2, {.fill_mode = "wrap", .seed = 4, .dtype = k::float64}).ptr(); },
                          {2, 4, 4, 1});
  check_training_gradient("RandomCrop", [] { return L::RandomCrop(2, 3, {.seed = 5, .dtype = k::float64}).ptr(); }, {2, 4, 5, 1});
  check_training_gradient("RandomCrop resized", [] { return L::RandomCrop(5, 4, {.seed = 5, .dtype = k::float64}).ptr(); }, {2, 3, 3, 1});
  check_training_gradient("RandomContrast",
                          [] { return L::RandomContrast(0.5, {.value_range = {-10, 10}, .seed = 6, .dtype = k::float64}).ptr(); },
                          {2, 3, 3, 2});
  check_training_gradient("RandomBrightness",
                          [] { return L::RandomBrightness(0.2, {.value_range = {-10, 10}, .seed = 7, .dtype = k::float64}).ptr(); },
                          {2, 3, 3, 1});
}

}  // namespace test_random_image_values

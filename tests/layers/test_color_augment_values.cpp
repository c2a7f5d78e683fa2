// The colour layers AutoContrast, Equalization, Solarization, RandomInvert,
// RandomPosterization, RandomGrayscale, RandomColorDegeneration and RandomColorJitter:
// Keras 3.15's values (printed by Keras on JAX for the same layers and images, random
// factors pinned so that the draws do not matter), configs, argument errors, seeds and
// gradients.
#include <doctest/doctest.h>

#include <functional>
#include <nlohmann/json.hpp>

#include "kiln/autodiff/gradient_check.h"
#include "kiln/core/error.h"
#include "kiln/layers.h"
#include "kiln/ops/ops.h"
#include "test_util.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_color_augment_values {

namespace k = kiln;
namespace L = kiln::layers;
using kiln_test::check_values;

namespace {
double max_diff(const k::Tensor& a, const k::Tensor& b) { return k::max(k::abs(a - b)).item<double>(); }

// (1, 2, 3, 3) RGB pixels.
k::Tensor image() {
  return k::Tensor(std::vector<float>{255, 0, 0, 0, 128, 255, 10, 200, 30, 50, 60, 70, 0, 0, 0, 255, 255, 255},
                   k::Shape{1, 2, 3, 3});
}

k::Tensor channels_first(const k::Tensor& x) { return k::transpose(x, {0, 3, 1, 2}); }

nlohmann::json config_of(const k::Layer& l) {
  nlohmann::json c = l.get_config();
  c.erase("name");
  c.erase("dtype");
  c.erase("trainable");
  return c;
}

void check_training_gradient(const char* label, const std::function<k::LayerPtr()>& make, const k::Tensor& x) {
  auto r = k::check_gradients([&](const std::vector<k::Tensor>& in) { return (*make())(in[0], true); }, {x});
  CHECK_MESSAGE(r.ok, label, ": ", r.report);
}
}  // namespace

TEST_CASE("AutoContrast: Keras 3.15's values, in training and at inference") {
  const k::Tensor xs = image() * 0.5 + 20.0;
  check_values(L::AutoContrast()(xs, true), {255, 0, 0, 0, 128, 255, 10, 200, 30, 50, 60, 70, 0, 0, 0, 255, 255, 255}, 1e-5);
  check_values(L::AutoContrast()(xs, false), {255, 0, 0, 0, 128, 255, 10, 200, 30, 50, 60, 70, 0, 0, 0, 255, 255, 255}, 1e-5);
  check_values(L::AutoContrast({.value_range = {1, 0}})(xs / 255.0), {1, 0, 0, 0, 0.501960814, 1, 0.0392156877, 0.784313798, 0.117647067, 0.196078449,
                          0.235294133, 0.274509817, 0, 0, 0, 1, 1, 1}, 1e-5);
  // Keras reduces over the input's axes 1 and 2 whatever data_format says (C and H here).
  check_values(L::AutoContrast({.data_format = "channels_first"})(channels_first(xs)), {255, 0, 0, 50, 0, 254.999985, 0, 128, 197.755096, 60, 0, 254.999985, 0, 255, 20.8163223,
                          70, 0, 254.999985}, 1e-5);
  // A constant image divides by zero; Keras keeps the input there.
  check_values(L::AutoContrast()(k::fill({1, 2, 2, 1}, 7.0)), {7, 7, 7, 7});
  check_values(L::AutoContrast()(k::squeeze(xs, {0})), {255, 0, 0, 0, 128, 255, 10, 200, 30, 50, 60, 70, 0, 0, 0, 255, 255, 255}, 1e-5);
  CHECK(config_of(*L::AutoContrast({.value_range = {3, -1}}).ptr()) ==
        nlohmann::json::parse(R"({"data_format": "channels_last", "value_range": [-1, 3]})"));
  CHECK_THROWS_WITH_AS(L::AutoContrast({.value_range = {1}}),
                       "AutoContrast: the `value_range` argument should be a list of two numbers. Received: value_range=[1.0]",
                       k::ValueError);
  check_training_gradient("AutoContrast", [] { return L::AutoContrast({.value_range = {-3, 3}, .dtype = k::float64}).ptr(); },
                          k::random::normal({2, 3, 3, 2}, 0.0, 1.0, k::float64, 5));
}

TEST_CASE("Equalization: Keras 3.15's values; the identity at inference") {
  // (2, 4, 4, 3): channel 0 spread, channel 1 one level (kept), channel 2 four levels.
  const k::Tensor x = k::Tensor(std::vector<float>{217, 7, 128, 69, 7, 0, 19, 7, 0, 208, 7, 192, 128, 7, 192, 186, 7, 128, 143, 7, 64, 208, 7,
                          0, 100, 7, 128, 8, 7, 128, 216, 7, 0, 220, 7, 128, 20, 7, 64, 108,
                          7, 0, 1, 7, 0, 171, 7, 128, 65, 7, 192, 98, 7, 192, 206, 7, 64,
                          175, 7, 128, 215, 7, 128, 99, 7, 0, 148, 7, 192, 134, 7, 64, 108,
                          7, 128, 227, 7, 192, 136, 7, 128, 146, 7, 64, 184, 7, 128, 86, 7,
                          64, 84, 7, 64, 58, 7, 128}, k::Shape{2, 4, 4, 3});
  check_values(L::Equalization()(x, true), {239, 7, 194, 49, 7, 0, 16, 7, 0, 214, 7, 255, 115, 7, 255, 189, 7, 194, 140, 7, 71, 214, 7,
                          0, 90, 7, 194, 8, 7, 194, 230, 7, 0, 247, 7, 194, 25, 7, 71, 107,
                          7, 0, 0, 7, 0, 165, 7, 194, 41, 7, 255, 74, 7, 255, 197, 7, 71,
                          173, 7, 194, 222, 7, 194, 82, 7, 0, 156, 7, 255, 123, 7, 71, 107,
                          7, 194, 255, 7, 255, 132, 7, 194, 148, 7, 71, 181, 7, 194, 66, 7,
                          71, 58, 7, 71, 33, 7, 194}, 1e-6);
  CHECK(max_diff(L::Equalization()(x, false), x) == 0);
  check_values(L::Equalization({.value_range = {0, 1}, .bins = 16})(x / 255.0, true), {0.968627512, 0.0274509825, 0.760784388, 0.200000018, 0.0274509825, 0, 0.0666666701,
                          0.0274509825, 0, 0.968627512, 0.0274509825, 1, 0.466666698,
                          0.0274509825, 1, 0.733333349, 0.0274509825, 0.760784388,
                          0.600000024, 0.0274509825, 0.278431386, 0.968627512, 0.0274509825,
                          0, 0.333333343, 0.0274509825, 0.760784388, 0, 0.0274509825,
                          0.760784388, 0.968627512, 0.0274509825, 0, 0.968627512,
                          0.0274509825, 0.760784388, 0.0666666701, 0.0274509825,
                          0.278431386, 0.400000036, 0.0274509825, 0, 0, 0.0274509825, 0,
                          0.733333349, 0.0274509825, 0.760784388, 0.13333334, 0.0274509825,
                          1, 0.333333343, 0.0274509825, 1, 0.968627512, 0.0274509825,
                          0.278431386, 0.733333349, 0.0274509825, 0.760784388, 0.968627512,
                          0.0274509825, 0.760784388, 0.333333343, 0.0274509825, 0,
                          0.600000024, 0.0274509825, 1, 0.466666698, 0.0274509825,
                          0.278431386, 0.400000036, 0.0274509825, 0.760784388, 1,
                          0.0274509825, 1, 0.600000024, 0.0274509825, 0.760784388,
                          0.600000024, 0.0274509825, 0.278431386, 0.733333349, 0.0274509825,
                          0.760784388, 0.333333343, 0.0274509825, 0.278431386, 0.200000018,
                          0.0274509825, 0.278431386, 0.13333334, 0.0274509825, 0.760784388}, 1e-5);
  // channels_first and one image give the same per-channel histograms.
  const k::Tensor cf = L::Equalization({.data_format = "channels_first"})(channels_first(x), true);
  CHECK(max_diff(k::transpose(cf, {0, 2, 3, 1}), L::Equalization()(x, true)) == 0);
  const k::Tensor one = k::slice(x, {k::Slice(0, 1)});
  CHECK(max_diff(L::Equalization()(k::squeeze(one, {0}), true), k::squeeze(L::Equalization()(one, true), {0})) == 0);
  CHECK(config_of(*L::Equalization({.value_range = {1, 0}, .bins = 10}).ptr()) ==
        nlohmann::json::parse(R"({"data_format": "channels_last", "bins": 10, "value_range": [0, 1]})"));
  CHECK_THROWS_WITH_AS(L::Equalization({.bins = 0}),
                       "Equalization: the `bins` argument should be a positive integer. Received: bins=0", k::ValueError);
}

TEST_CASE("Solarization, RandomInvert and RandomPosterization in training: Keras 3.15's values") {
  const k::Tensor x = image();
  check_values(L::Solarization()(x, true), {0, 255, 255, 255, 127, 0, 245, 55, 225, 205, 195, 185, 255, 255, 255, 0, 0, 0}, 1e-6);
  check_values(L::Solarization({.value_range = {1, -1}})(x / 127.5 - 1.0, true), {-1, 1, 1, 1, -0.00392150879, -1, 0.921568751, -0.568627417, 0.764706016, 0.60784328,
                          0.529411912, 0.450980425, 1, 1, 1, -1, -1, -1}, 1e-5);
  check_values(L::RandomInvert({1.0, 1.0}, {.value_range = {-1, 2}})(x / 100.0, true), {-0.549999952, 2, 2, 2, 0.720000029, -0.549999952, 1.89999998, 0, 1.70000005, 1.5,
                          1.39999998, 1.29999995, 2, 2, 2, -0.549999952, -0.549999952,
                          -0.549999952}, 1e-5);
  check_values(L::RandomPosterization({3, 3})(x + 0.7, true), {224, 0, 0, 0, 128, 224, 0, 192, 0, 32, 32, 64, 0, 0, 0, 224, 224, 224}, 1e-6);
  // (x / 255 - 0) / 1 · 255 falls just below some integers in float32; Keras truncates those.
  check_values(L::RandomPosterization({2, 2}, {.value_range = {0, 1}})(x / 255.0, true), {0.752941251, 0, 0, 0, 0.501960814, 0.752941251, 0, 0.752941251, 0, 0, 0, 0.250980407, 0, 0,
                          0, 0.752941251, 0.752941251, 0.752941251}, 1e-5);
  const k::Tensor one = k::Tensor(std::vector<float>{-1, -0.5, 0.1, 0.3, 0.77, 1}, k::Shape{1, 2, 3});
  check_values(L::RandomPosterization({5, 5}, {.value_range = {-1, 1}})(one, true),
               {-1, -0.56078428, 0.0666667223, 0.254902005, 0.756862879, 0.945098162}, 1e-5);
  // Inference is the identity; no inversion at probability 0.
  CHECK(max_diff(L::Solarization({.threshold_factor = 0.5})(x, false), x) == 0);
  CHECK(max_diff(L::RandomInvert()(x, false), x) == 0);
  CHECK(max_diff(L::RandomInvert({0.0, 0.0})(x, true), x) == 0);
  CHECK(max_diff(L::RandomPosterization(8)(x, false), x) == 0);
  // Configs as Keras writes them: factors as (lower, upper) pairs.
  CHECK(config_of(*L::Solarization({.threshold_factor = 0.5}).ptr()) ==
        nlohmann::json::parse(R"({"data_format": "channels_last", "value_range": [0, 255], "addition_factor": [0, 0.0],
                                  "threshold_factor": [0, 0.5], "seed": null})"));
  CHECK(config_of(*L::RandomInvert().ptr()) ==
        nlohmann::json::parse(R"({"data_format": "channels_last", "factor": [0, 1.0], "value_range": [0, 255], "seed": null})"));
  CHECK(config_of(*L::RandomPosterization(8).ptr()) ==
        nlohmann::json::parse(R"({"data_format": "channels_last", "factor": [1, 8], "value_range": [0, 255], "seed": null})"));
  CHECK_THROWS_WITH_AS(L::Solarization({.addition_factor = 1.5}),
                       "Solarization: the `addition_factor` and `threshold_factor` arguments should be a number (or a list "
                       "of two numbers) in the range [0, 1]. Received: input_number=1.5",
                       k::ValueError);
  CHECK_THROWS_WITH_AS(L::Solarization({.threshold_factor = {0.1, 0.2, 0.3}}),
                       "Solarization: the `addition_factor` and `threshold_factor` arguments should be a number (or a list "
                       "of two numbers) in the range [0, 1]. Received: threshold_factor=[0.1, 0.2, 0.3]",
                       k::ValueError);
  CHECK_THROWS_WITH_AS(L::RandomInvert(1.5),
                       "RandomInvert: the `factor` argument should be a number (or a list of two numbers) in the range "
                       "[0, 1]. Received: factor=1.5",
                       k::ValueError);
  CHECK_THROWS_WITH_AS(L::RandomPosterization(9),
                       "RandomPosterization: the `factor` argument should be a number (or a list of two numbers) in the "
                       "range [1, 8]. Received: factor=9",
                       k::ValueError);
}

TEST_CASE("Solarization, RandomInvert and RandomPosterization: random draws") {
  k::random::set_seed(3);
  const k::Tensor x = k::floor(k::random::uniform({8, 3, 3, 3}, 0.0, 256.0));
  // Each image is itself or its inverse; a seed repeats the choice.
  const k::Tensor inv = L::RandomInvert(1.0, {.seed = 4})(x, true);
  int inverted = 0;
  for (int64_t i = 0; i < 8; ++i) {
    const k::Tensor xi = x[i], yi = inv[i];
    const bool same = max_diff(yi, xi) == 0, flipped = max_diff(yi, 255.0 - xi) == 0;
    CHECK((same || flipped));
    inverted += flipped;
  }
  CHECK(inverted > 0);
  CHECK(inverted < 8);
  CHECK(max_diff(L::RandomInvert(1.0, {.seed = 4})(x, true), inv) == 0);
  // Kept bits k in [1, 8): every value is a multiple of 2^(8 - 7) = 2, never above x.
  const k::Tensor post = L::RandomPosterization(8, {.seed = 2})(x, true);
  CHECK(k::max(k::floor_mod(post, k::scalar_like(2.0, post))).item<double>() == 0);
  CHECK(k::max(post - x).item<double>() <= 0);
  // Solarized values stay in [0, 255]: each pixel is y or 255 - y, y = min(x + a, 255).
  const k::Tensor sol = L::Solarization({.addition_factor = 0.1, .threshold_factor = {0.3, 0.6}, .seed = 1})(x, true);
  CHECK(k::min(sol).item<double>() >= 0);
  CHECK(k::max(sol).item<double>() <= 255);
}

TEST_CASE("RandomGrayscale and RandomColorDegeneration in training: Keras 3.15's values") {
  const k::Tensor x = image();
  check_values(L::RandomGrayscale(1.0)(x, true), {76.2195053, 76.2195053, 76.2195053, 104.206001, 104.206001, 104.206001, 123.808998,
                          123.808998, 123.808998, 58.1450005, 58.1450005, 58.1450005, 0, 0,
                          0, 254.974518, 254.974518, 254.974518}, 1e-6);
  check_values(L::RandomGrayscale(1.0, {.data_format = "channels_first"})(channels_first(x), true), {76.2195053, 104.206001, 123.808998, 58.1450005, 0, 254.974518, 76.2195053, 104.206001,
                          123.808998, 58.1450005, 0, 254.974518, 76.2195053, 104.206001,
                          123.808998, 58.1450005, 0, 254.974518}, 1e-6);
  const k::Tensor gray1 = k::Tensor(std::vector<float>{3, 9, 200, 40}, k::Shape{1, 2, 2, 1});
  CHECK(max_diff(L::RandomGrayscale(1.0)(gray1, true), gray1) == 0);
  CHECK(max_diff(L::RandomGrayscale(0.0)(x, true), x) == 0);
  CHECK(max_diff(L::RandomGrayscale(1.0)(x, false), x) == 0);
  check_values(L::RandomColorDegeneration({0.4, 0.4})(x, true), {183.487793, 30.4878025, 30.4878025, 41.6823997, 118.482399, 194.682404, 55.5236015,
                          169.523605, 67.5236053, 53.2579994, 59.2579994, 65.2580032, 0, 0,
                          0, 254.989807, 254.989807, 254.989807}, 1e-6);
  check_values(L::RandomColorDegeneration({-0.6, -0.6}, {.value_range = {0, 200}})(x, true), {200, 0, 0, 0, 142.276398, 200, 0, 200, 0, 45.112999, 61.112999, 77.112999, 0, 0, 0, 200,
                          200, 200}, 1e-6);
  CHECK(max_diff(L::RandomColorDegeneration(0.5)(x, false), x) == 0);
  CHECK(config_of(*L::RandomGrayscale(0.5, {.seed = 3}).ptr()) ==
        nlohmann::json::parse(R"({"data_format": "channels_last", "factor": 0.5})"));
  CHECK(config_of(*L::RandomColorDegeneration(0.3).ptr()) ==
        nlohmann::json::parse(R"({"data_format": "channels_last", "factor": [-0.3, 0.3], "value_range": [0, 255], "seed": null})"));
  CHECK_THROWS_WITH_AS(L::RandomGrayscale(1.5), "RandomGrayscale: `factor` should be between 0 and 1. Received: factor=1.5",
                       k::ValueError);
  CHECK_THROWS_WITH_AS(L::RandomColorDegeneration(2),
                       "RandomColorDegeneration: the `factor` argument should be a number (or a list of two numbers) in "
                       "the range [-1, 1]. Received: factor=2",
                       k::ValueError);
  CHECK_THROWS_AS(L::RandomGrayscale(1.0)(k::zeros({1, 2, 2, 4}), true), k::ValueError);
  CHECK_THROWS_AS(L::RandomColorDegeneration(0.3)->compute_output_shape(k::Shape{k::None, 4, 4, 1}), k::ValueError);
  check_training_gradient("RandomGrayscale", [] { return L::RandomGrayscale(0.5, {.seed = 1, .dtype = k::float64}).ptr(); },
                          k::random::normal({4, 2, 2, 3}, 0.0, 1.0, k::float64, 6));
  check_training_gradient("RandomColorDegeneration",
                          [] { return L::RandomColorDegeneration(0.8, {.value_range = {-9, 9}, .seed = 2, .dtype = k::float64}).ptr(); },
                          k::random::normal({2, 2, 2, 3}, 0.0, 1.0, k::float64, 7));
}

TEST_CASE("RandomColorJitter in training: Keras 3.15's values") {
  const k::Tensor x = image();
  // Brightness 0.1, contrast 1.5, saturation 0.3 and a hue shift of 0.5 (the same either way).
  check_values(L::RandomColorJitter({.brightness_factor = L::Factor(0.1, 0.1), .contrast_factor = L::Factor(-0.5, 0.5),
                                     .saturation_factor = L::Factor(0.3, 0.3), .hue_factor = L::Factor(1.0, 1.0), .seed = 1})(x, true),
               {145.714325, 255, 255, 255, 183.839325, 145.714325, 255, 145.714325, 244.749985, 83.9166641,
                          81.0059509, 72.4880981, 0, 0, 0, 255, 255, 255}, 1e-5);
  check_values(L::RandomColorJitter({.value_range = {0, 1}, .brightness_factor = L::Factor(-0.2, -0.2),
                                     .contrast_factor = L::Factor(-0.3, 0.3)})(x / 255.0, true),
               {0.959999919, 0, 0, 0, 0.306470633, 0.956274509, 0, 0.673529387, 0, 0, 0, 0.0131372809, 0,
                          0, 0, 0.959999919, 0.953921556, 0.956274509}, 1e-5);
  CHECK(max_diff(L::RandomColorJitter({.brightness_factor = 0.5})(x, false), x) == 0);
  CHECK(max_diff(L::RandomColorJitter()(x, true), x) == 0);
  CHECK(config_of(*L::RandomColorJitter({.brightness_factor = 0.2, .hue_factor = L::Factor(0.1, 0.2)}).ptr()) ==
        nlohmann::json::parse(R"({"data_format": "channels_last", "value_range": [0, 255], "brightness_factor": 0.2,
                                  "contrast_factor": null, "saturation_factor": null, "hue_factor": [0.1, 0.2], "seed": null})"));
  CHECK_THROWS_AS(L::RandomColorJitter({.brightness_factor = 2.0}), k::ValueError);
  // A seed repeats the draws.
  const L::RandomColorJitterOptions o{.brightness_factor = 0.3, .contrast_factor = 0.4, .seed = 5};
  CHECK(max_diff(L::RandomColorJitter(o)(x, true), L::RandomColorJitter(o)(x, true)) == 0);
  check_training_gradient("RandomColorJitter",
                          [] {
                            return L::RandomColorJitter({.value_range = {-9, 9}, .brightness_factor = 0.2, .contrast_factor = 0.3,
                                                         .saturation_factor = L::Factor(0.4, 0.6), .seed = 3, .dtype = k::float64})
                                .ptr();
                          },
                          k::random::uniform({2, 2, 2, 3}, 0.1, 0.9, k::float64, 8));
}

}  // namespace test_color_augment_values

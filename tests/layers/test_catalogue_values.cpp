// Values of the normalization, shape and image layers against numbers printed
// by Keras 3.15 (JAX backend) for the same inputs, the random layers'
// training-mode statistics, and hand-computed shapes.
#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "kiln/core/error.h"
#include "kiln/layers.h"
#include "kiln/ops/ops.h"
#include "test_util.h"

namespace k = kiln;
namespace L = kiln::layers;
using kiln_test::check_values;

namespace {
// (1, 3, 2, 4): (arange(24) * 0.37) % 1.9 - 0.8, as the Keras script made it.
k::Tensor normal_input() {
  std::vector<float> v(24);
  for (int i = 0; i < 24; ++i) v[i] = std::fmod(static_cast<float>(i) * 0.37f, 1.9f) - 0.8f;
  return k::Tensor(v, k::Shape{1, 3, 2, 4});
}
// (1, 3, 4, 1): 0..11.
k::Tensor image() { return k::reshape(k::range(0.0, 12.0, 1.0, k::float32), {1, 3, 4, 1}); }
}  // namespace

TEST_CASE("GroupNormalization, RMSNormalization, UnitNormalization: Keras values") {
  const k::Tensor x = normal_input();
  check_values(L::GroupNormalization({.groups = 2})(x),
               {-1.43914747, -0.831750631, -0.498709381, 0.259601682, 0.990439832, 1.59783649, -1.35949481, -0.601183534,
                0.300962418, 0.908358991, 1.67374921, -1.4619689, -0.388514996, 0.218881637, 0.812964439, 1.57127523,
                -1.07799244, -0.470595747, -0.047821939, 0.71048975, 1.35159492, -1.16007304, -0.90860641, -0.150295556},
               1e-4);
  check_values(L::RMSNormalization()(x),
               {-1.66395688, -0.894376814, -0.124796771, 0.644783258, 1.01160574, 1.56203818, -0.714074612, -0.163641855,
                0.393600345, 0.953723669, 1.51384723, -0.802338719, -0.279734135, 0.367151231, 1.01403749, 1.66092288,
                -1.39951718, -0.506721795, 0.386073589, 1.27887011, 1.58690202, -1.11083114, -0.458437532, 0.193955198},
               1e-4);
  check_values(L::UnitNormalization({.axis = {1, 2}})(x),
               {-0.522753, -0.291943401, -0.0465186201, 0.246264488, 0.44434005, 0.712885022, -0.372148901, -0.0873840451,
                0.169894755, 0.427730978, 0.775310278, -0.421032667, -0.10455054, 0.142576993, 0.449680239, 0.754681706,
                -0.378995836, -0.142576993, 0.124049574, 0.421033055, 0.588097215, -0.427730978, -0.201580346, 0.0873844251},
               1e-4);
  CHECK_THROWS_AS(L::GroupNormalization({.groups = 3})(x), k::ValueError);  // 4 channels
}

TEST_CASE("Normalization: adapt, axis None, invert (Keras values)") {
  const k::Tensor d({{1.f, 2.f}, {3.f, 5.f}, {0.f, 1.f}, {4.f, -2.f}});
  L::Normalization n;
  n->adapt(d);
  check_values(n->mean(), {2, 1.5});
  check_values(n->variance(), {2.5, 6.25});
  check_values(n(d), {-0.632455528, 0.2, 0.632455528, 1.4, -1.26491106, -0.2, 1.26491106, -1.4}, 1e-5);
  L::Normalization all({.axis = k::Axes(std::vector<int>{})});
  all->adapt(d);
  check_values(all(d), {-0.356034517, 0.118678175, 0.593390882, 1.54281628, -0.830747247, -0.356034517, 1.06810355, -1.78017259},
               1e-5);
  L::Normalization inv({.mean = std::vector<double>{1, 2}, .variance = std::vector<double>{4, 9}, .invert = true});
  check_values(inv(d), {3, 8, 7, 17, 1, 5, 9, -4});
  CHECK_THROWS_AS(L::Normalization({.mean = std::vector<double>{1}}), k::ValueError);
  // The config round trip keeps the given statistics.
  auto back = k::layers::from_config(k::layers::serialize(*inv.ptr()));
  check_values((*back)(d), {3, 8, 7, 17, 1, 5, 9, -4});
}

TEST_CASE("UpSampling2D bilinear, Resizing, CenterCrop: Keras values") {
  const k::Tensor img = image();
  check_values(L::UpSampling2D(2, {.interpolation = "bilinear"})(img),
               {0, 0.25, 0.75, 1.25, 1.75, 2.25, 2.75, 3, 1, 1.25, 1.75, 2.25, 2.75, 3.25, 3.75, 4,
                3, 3.25, 3.75, 4.25, 4.75, 5.25, 5.75, 6, 5, 5.25, 5.75, 6.25, 6.75, 7.25, 7.75, 8,
                7, 7.25, 7.75, 8.25, 8.75, 9.25, 9.75, 10, 8, 8.25, 8.75, 9.25, 9.75, 10.25, 10.75, 11});
  check_values(L::UpSampling2D({1, 2})(img), {0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11});
  check_values(L::Resizing(2, 3)(img), {1.16666675, 2.5, 3.83333349, 7.16666651, 8.5, 9.83333397});
  check_values(L::Resizing(5, 3, {.interpolation = "nearest"})(img), {0, 2, 3, 0, 2, 3, 4, 6, 7, 8, 10, 11, 8, 10, 11});
  check_values(L::Resizing(2, 2, {.crop_to_aspect_ratio = true})(img), {1.25, 2.75, 7.25, 8.75});
  check_values(L::Resizing(4, 2, {.pad_to_aspect_ratio = true, .fill_value = -1})(img), {-1, -1, 1, 3, 8, 10, -1, -1});
  check_values(L::CenterCrop(2, 2)(img), {1, 2, 5, 6});
  check_values(L::CenterCrop(4, 6)(img),
               {0, 0.5, 1.16666675, 1.83333349, 2.5, 3, 1, 1.5, 2.16666675, 2.83333349, 3.5, 4,
                3, 3.5, 4.16666651, 4.83333349, 5.5, 6, 4, 4.5, 5.16666651, 5.83333349, 6.5, 7});
  check_values(L::Rescaling(1.0 / 255, {.offset = -1})(k::Tensor({0.f, 255.f, 127.5f})), {-1, 0, -0.5});
}

TEST_CASE("Cropping and ZeroPadding: values and shapes") {
  const k::Tensor seq = k::reshape(k::range(0.0, 6.0, 1.0, k::float32), {1, 6, 1});
  check_values(L::Cropping1D()(seq), {1, 2, 3, 4});
  check_values(L::Cropping1D({2, 1})(seq), {2, 3, 4});
  check_values(L::ZeroPadding1D({1, 2})(k::Tensor({{{1.f}, {2.f}}})), {0, 1, 2, 0, 0});
  check_values(L::Cropping2D({1, 1}, {0, 2})(image()), {4, 5});
  CHECK(L::Cropping3D()->compute_output_shape(k::Shape{k::None, 4, 5, 6, 2}) == k::Shape{k::None, 2, 3, 4, 2});
  CHECK(L::ZeroPadding3D(1, {0, 2}, 1)->compute_output_shape(k::Shape{k::None, 4, 5, 6, 2}) == k::Shape{k::None, 6, 7, 8, 2});
  CHECK(k::sum(L::ZeroPadding3D()(k::ones({1, 2, 2, 2, 1}))).item<float>() == 8.f);
  CHECK_THROWS_AS(L::Cropping1D({3, 3})(seq), k::ValueError);  // nothing left
  auto c = k::layers::serialize(*L::Cropping2D({1, 2}, {3, 4}).ptr());
  CHECK(c["config"]["cropping"] == nlohmann::json::parse("[[1, 2], [3, 4]]"));
  auto p = k::layers::from_config({{"class_name", "ZeroPadding3D"}, {"config", {{"padding", 2}}}});
  CHECK(p->compute_output_shape(k::Shape{1, 1, 1, 1, 3}) == k::Shape{1, 5, 5, 5, 3});
}

TEST_CASE("random layers in training mode: the statistics Keras's formulas give") {
  k::random::set_seed(7);
  const k::Tensor x = k::ones({200, 100});
  k::Tensor gn = L::GaussianNoise(0.5)(x, true) - x;
  CHECK(k::mean(gn).item<float>() == doctest::Approx(0).epsilon(0.02).scale(1));
  CHECK(k::std(gn).item<float>() == doctest::Approx(0.5).epsilon(0.03));
  k::Tensor gd = L::GaussianDropout(0.2)(x, true);  // x · N(1, sqrt(0.2 / 0.8) = 0.5)
  CHECK(k::mean(gd).item<float>() == doctest::Approx(1).epsilon(0.02));
  CHECK(k::std(gd).item<float>() == doctest::Approx(0.5).epsilon(0.03));
  // AlphaDropout keeps a standard normal input at mean 0 and variance 1.
  k::Tensor z = k::random::normal({200, 100});
  k::Tensor ad = L::AlphaDropout(0.3)(z, true);
  CHECK(k::mean(ad).item<float>() == doctest::Approx(0).scale(1).epsilon(0.03));
  CHECK(k::std(ad).item<float>() == doctest::Approx(1).epsilon(0.03));
  // SpatialDropout2D drops whole channels: every pixel of a (sample, channel) agrees.
  k::Tensor sd = L::SpatialDropout2D(0.5)(k::ones({50, 3, 4, 8}), true);
  k::Tensor per_map_max = k::max(sd, {1, 2}), per_map_min = k::min(sd, {1, 2});
  CHECK(k::max(k::abs(per_map_max - per_map_min)).item<float>() == 0.f);
  const double kept = k::mean(k::cast(per_map_max > 0.0, k::float32)).item<float>();
  CHECK(kept == doctest::Approx(0.5).epsilon(0.15));
  CHECK(k::max(sd).item<float>() == 2.f);  // kept maps scaled by 1 / (1 - rate)
  // Inference: the identity, for each.
  CHECK(k::max(k::abs(L::AlphaDropout(0.3)(z) - z)).item<float>() == 0.f);
  // Seeded layers repeat their sequence.
  k::Tensor a1 = L::GaussianNoise(0.1, {.seed = 3})(x, true), a2 = L::GaussianNoise(0.1, {.seed = 3})(x, true);
  CHECK(k::max(k::abs(a1 - a2)).item<float>() == 0.f);
  CHECK_THROWS_AS(L::GaussianNoise(1.5), k::ValueError);
}

TEST_CASE("ActivityRegularization adds l1·Σ|x| + l2·Σx² over the batch size; Identity is the identity") {
  L::ActivityRegularization reg(0.1, 0.01);
  k::Tensor x({{1.f, -2.f}, {3.f, 0.f}});
  check_values(reg(x), {1, -2, 3, 0});
  REQUIRE(reg->losses().size() == 1);
  // (0.1 · 6 + 0.01 · 14) / 2 = 0.37
  CHECK(reg->losses()[0].item<float>() == doctest::Approx(0.37));
  auto c = k::layers::serialize(*reg.ptr());
  CHECK(c["config"]["l1"] == 0.1);
  CHECK_FALSE(c["config"].contains("activity_regularizer"));
  check_values(L::Identity()(x), {1, -2, 3, 0});
}

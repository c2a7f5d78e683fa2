// RandAugment, AugMix, ContrastLimitedAdaptiveHistogramEqualization and
// MaxNumBoundingBoxes: Keras 3.15's values, the random layers' draws and structure.
// Every expected value below was printed by Keras 3.15 on JAX (build/oracle-venv) for
// the same layer and input:
//   CLAHE: layer(A) for the image A built in image_a() (keras.layers.Contrast...(...)(A));
//   MaxNumBoundingBoxes: layer({"images", "bounding_boxes": {"boxes", "labels"}}) with
//     bounding_box_format="xyxy";
//   RandAugment: layer.transform_images(C, t) with t = layer.get_random_transformation(C)
//     and t["layer_idxes"] replaced by the indices named in the test (9 = auto_contrast,
//     10 = equalization, the two ops that draw nothing);
//   AugMix: layer.transform_images(C, t) with t written out in the test (weights, blend
//     and chains of auto_contrast / equalization).
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>

#include "kiln/autodiff/gradient_check.h"
#include "kiln/autodiff/gradient_tape.h"
#include "kiln/core/error.h"
#include "kiln/layers.h"
#include "kiln/ops/ops.h"
#include "test_util.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_image_policy_values {

namespace k = kiln;
namespace L = kiln::layers;
using kiln_test::check_values;

namespace {
// A: (1, 5, 6, 2), ((i · 37 + 11) mod 256) + 0.25 for i = 0..59.
k::Tensor image_a() {
  std::vector<float> v;
  for (int i = 0; i < 60; ++i) v.push_back(static_cast<float>((i * 37 + 11) % 256) + 0.25f);
  return k::Tensor(v, k::Shape{1, 5, 6, 2});
}

// C: (2, 3, 4, 3), ((i · 53 + 7) mod 200) + 10.5 for i = 0..71.
k::Tensor image_c() {
  std::vector<float> v;
  for (int i = 0; i < 72; ++i) v.push_back(static_cast<float>((i * 53 + 7) % 200) + 10.5f);
  return k::Tensor(v, k::Shape{2, 3, 4, 3});
}

nlohmann::json config_of(const k::Layer& l) {
  nlohmann::json c = l.get_config();
  c.erase("name");
  c.erase("dtype");
  c.erase("trainable");
  return c;
}

using Clahe = L::ContrastLimitedAdaptiveHistogramEqualization;
}  // namespace

TEST_CASE("ContrastLimitedAdaptiveHistogramEqualization: Keras 3.15's values") {
  const k::Tensor a = image_a();
  // Default: 8 x 8 tiles over 5 x 6 pixels (tiles of one pixel, symmetric padding), clip 4.
  check_values(Clahe()(a), {14.8272171, 51.2468643, 87.6665115, 124.086151, 160.505798, 196.925446, 233.345093, 15.780283,
               52.1999283, 90.6194534, 127.039101, 163.45874, 199.878387, 236.298035, 18.7332287, 55.152874,
               92.5724564, 128.992096, 165.411743, 202.831329, 239.250977, 21.6861725, 58.1058197, 95.5254059,
               130.945114, 167.364761, 205.784271, 242.203918, 24.6391163, 61.0587616, 98.4783478, 134.897995,
               171.317642, 208.737228, 245.15686, 27.5920601, 64.0117035, 100.431351, 137.850937, 174.270584,
               211.69017, 248.109818, 30.5450058, 66.964653, 104.384232, 140.803879, 177.223526, 214.643112,
               251.062759, 33.4979477, 69.9175949, 107.337181, 143.756821, 180.176468, 217.596054, 254.015701,
               36.4508934, 72.8705368, 110.290123, 146.709763}, 1e-5);
  check_values(Clahe({.clip_limit = 2.0, .tile_grid_size = {2, 3}})(a), {12.4820805, 47.7412224, 86.9996338, 122.258774, 159.517548, 195.77652, 234.03511, 15.34093,
               50.6000748, 88.8586655, 125.117622, 164.376038, 199.635178, 234.894318, 20.1994114, 55.4585571,
               91.717514, 127.976479, 167.234879, 204.493683, 238.752991, 21.0586281, 58.3174057, 97.5758209,
               132.510834, 168.199982, 206.888535, 242.577667, 24.4774971, 60.833168, 98.0220261, 135.04422,
               171.733185, 209.588593, 245.444366, 28.1773701, 63.5293159, 100.078445, 138.627197, 175.176331,
               211.225433, 247.774536, 29.8626213, 66.4116821, 102.960785, 140.009766, 178.058716, 215.60759,
               251.135925, 32.5790291, 70.654686, 108.063812, 143.473145, 180.215668, 217.958069, 254.033997,
               35.6437187, 71.8862839, 110.961868, 147.371063}, 1e-5);
  // clip_limit 0: no clipping.
  check_values(Clahe({.clip_limit = 0.0, .tile_grid_size = {4, 4}})(a), {63.75, 63.75, 191.25, 191.25, 159.375, 191.25, 255, 63.75, 31.875, 95.625, 191.25, 255, 255, 255,
               127.5, 127.5, 127.5, 159.375, 191.25, 255, 255, 63.75, 127.5, 191.25, 159.375, 159.375, 255, 255,
               47.8125, 63.75, 127.5, 159.375, 175.3125, 223.125, 255, 63.75, 63.75, 63.75, 191.25, 191.25, 255,
               255, 127.5, 127.5, 127.5, 159.375, 191.25, 255, 255, 63.75, 95.625, 159.375, 159.375, 191.25, 255,
               255, 63.75, 79.6875, 159.375, 191.25}, 1e-5);
  // value_range (-1, 1), channels_first, A / 255 · 2 - 1.
  const k::Tensor b = k::transpose(a / 255.0 * 2.0 - 1.0, {0, 3, 1, 2});
  check_values(Clahe({.value_range = {-1, 1}, .clip_limit = 1.5, .tile_grid_size = {2, 2}, .data_format = "channels_first"})(b),
               {-0.906529725, -0.321571052, 0.257506609, 0.82482183, -0.605489016, -0.024451077, 0.572269917,
               -0.850199461, -0.271121919, 0.296193361, 0.871350408, -0.553079486, 0.0388212204, 0.623526096,
               -0.804120898, -0.2341187, 0.342418075, 0.925489306, -0.504152775, 0.0800448656, 0.66130209,
               -0.770819306, -0.191522419, 0.391695261, 0.969826937, -0.454026103, 0.129010916, 0.705512881,
               -0.718666732, -0.132688999, -0.63169384, -0.0467350483, 0.538223624, -0.890126884, -0.301247418,
               0.285671711, 0.847105861, -0.575363517, 0.00959515572, 0.588672876, -0.831836224, -0.242956758,
               0.316470861, 0.901175976, -0.521897078, 0.0572535992, 0.642938852, -0.776866794, -0.220875621,
               0.363322258, 0.946539521, -0.48166126, 0.101556301, 0.6867342, -0.748811841, -0.165121436,
               0.417261958, 0.992456913, -0.43302989, 0.152294159}, 1e-5);
  // One image (H, W, C).
  check_values(Clahe({.tile_grid_size = {3, 2}})(k::squeeze(a, {0})), {13.9636164, 47.4825439, 88.9985275, 122.517456, 162.700607, 197.552368, 233.070557, 14.6821022,
               50.8667145, 91.0498581, 125.235207, 166.75119, 204.268646, 237.787582, 23.3976479, 56.9165802,
               97.0997162, 131.951492, 167.469681, 204.987137, 240.505325, 24.7825546, 59.6343269, 101.150314,
               132.669983, 166.188904, 207.704895, 241.223816, 25.8342514, 60.3528137, 97.8702698, 134.388092,
               171.23912, 209.756226, 245.940826, 29.5516357, 65.0698242, 98.5887527, 140.104736, 173.623672,
               214.473236, 248.658585, 30.2701206, 65.7883148, 104.638618, 141.489655, 180.339951, 217.857407,
               251.282257, 31.7415009, 70.1290588, 106.517731, 144.572083, 180.960693, 217.682083, 254.070572,
               36.1957932, 72.5841522, 111.305298, 147.693604}, 1e-5);
  // The same in training: CLAHE draws nothing.
  check_values(Clahe({.tile_grid_size = {3, 2}})(a, true), {13.9636164, 47.4825439, 88.9985275, 122.517456, 162.700607, 197.552368, 233.070557, 14.6821022,
               50.8667145, 91.0498581, 125.235207, 166.75119, 204.268646, 237.787582, 23.3976479, 56.9165802,
               97.0997162, 131.951492, 167.469681, 204.987137, 240.505325, 24.7825546, 59.6343269, 101.150314,
               132.669983, 166.188904, 207.704895, 241.223816, 25.8342514, 60.3528137, 97.8702698, 134.388092,
               171.23912, 209.756226, 245.940826, 29.5516357, 65.0698242, 98.5887527, 140.104736, 173.623672,
               214.473236, 248.658585, 30.2701206, 65.7883148, 104.638618, 141.489655, 180.339951, 217.857407,
               251.282257, 31.7415009, 70.1290588, 106.517731, 144.572083, 180.960693, 217.682083, 254.070572,
               36.1957932, 72.5841522, 111.305298, 147.693604}, 1e-5);
  check_values(Clahe({.tile_grid_size = {3, 2}})(a, false), {13.9636164, 47.4825439, 88.9985275, 122.517456, 162.700607, 197.552368, 233.070557, 14.6821022,
               50.8667145, 91.0498581, 125.235207, 166.75119, 204.268646, 237.787582, 23.3976479, 56.9165802,
               97.0997162, 131.951492, 167.469681, 204.987137, 240.505325, 24.7825546, 59.6343269, 101.150314,
               132.669983, 166.188904, 207.704895, 241.223816, 25.8342514, 60.3528137, 97.8702698, 134.388092,
               171.23912, 209.756226, 245.940826, 29.5516357, 65.0698242, 98.5887527, 140.104736, 173.623672,
               214.473236, 248.658585, 30.2701206, 65.7883148, 104.638618, 141.489655, 180.339951, 217.857407,
               251.282257, 31.7415009, 70.1290588, 106.517731, 144.572083, 180.960693, 217.682083, 254.070572,
               36.1957932, 72.5841522, 111.305298, 147.693604}, 1e-5);
}

TEST_CASE("ContrastLimitedAdaptiveHistogramEqualization: config, errors, no gradient") {
  CHECK(config_of(*Clahe({.value_range = {-1, 1}, .tile_grid_size = {2, 3}}).ptr()) ==
        nlohmann::json::parse(R"({"value_range": [-1, 1], "clip_limit": 4.0, "tile_grid_size": [2, 3],
                                  "data_format": "channels_last"})"));
  CHECK_THROWS_WITH_AS(Clahe({.tile_grid_size = {2}}),
                       "ContrastLimitedAdaptiveHistogramEqualization: the `tile_grid_size` argument should be a tuple of 2 "
                       "positive integers (height, width). Received: tile_grid_size=[2]",
                       k::ValueError);
  CHECK_THROWS_AS(Clahe({.value_range = {1, 2, 3}}), k::ValueError);
  CHECK_THROWS_AS(Clahe()(k::zeros({2, 3})), k::ValueError);
  // The histograms read integer parts: Keras's gradient is zero, and so is Kiln's.
  const k::Tensor x = image_a();
  k::GradientTape tape;
  tape.watch(x);
  const k::Tensor y = k::sum(Clahe({.tile_grid_size = {2, 2}})(x));
  const auto g = tape.gradient(y, x, k::UnconnectedGradients::Zero);
  REQUIRE(g.has_value());
  CHECK(k::max(k::abs(*g)).item<double>() == 0.0);
}

TEST_CASE("MaxNumBoundingBoxes: Keras 3.15's values; images unchanged") {
  const k::Tensor boxes = k::reshape(k::range(0.0, 24.0), {2, 3, 4});
  const k::Tensor labels = k::Tensor(std::vector<int32_t>{1, 2, 3, 4, 5, 6}, k::Shape{2, 3});
  const k::Tensor images = k::random::normal({2, 4, 4, 3}, 0.0, 1.0, k::float32, 1);
  auto run = [&](int64_t n, L::MaxNumBoundingBoxesOptions o) {
    o.bounding_box_format = "xyxy";
    return L::MaxNumBoundingBoxes(n, o)->call_data({images, L::BoundingBoxes{boxes, labels}});
  };
  const L::ImageData two = run(2, {});
  check_values(two.bounding_boxes->boxes, {0, 1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15, 16, 17, 18, 19});
  check_values(two.bounding_boxes->labels, {1, 2, 4, 5});
  CHECK(two.bounding_boxes->labels.dtype() == k::DType::int32);
  CHECK(k::max(k::abs(two.images - images)).item<double>() == 0.0);
  const L::ImageData five = run(5, {});
  check_values(five.bounding_boxes->boxes, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, -1, -1, -1, -1, -1, -1, -1, -1, 12, 13, 14, 15, 16, 17, 18,
               19, 20, 21, 22, 23, -1, -1, -1, -1, -1, -1, -1, -1});
  check_values(five.bounding_boxes->labels, {1, 2, 3, -1, -1, 4, 5, 6, -1, -1});
  const L::ImageData four = run(4, {.fill_value = 7});
  check_values(four.bounding_boxes->boxes, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 7, 7, 7, 7, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
               7, 7, 7, 7});
  check_values(four.bounding_boxes->labels, {1, 2, 3, 7, 4, 5, 6, 7});
  // One image's boxes (N, 4) and labels (N,).
  const L::BoundingBoxes one = L::MaxNumBoundingBoxes(2)->transform_bounding_boxes(
      {k::slice(boxes, {k::Index(1)}), k::slice(labels, {k::Index(1)})});
  check_values(one.boxes, {12, 13, 14, 15, 16, 17, 18, 19});
  check_values(one.labels, {4, 5});
  // As a layer in a model: the images as they are, in training and at inference.
  check_values(L::MaxNumBoundingBoxes(3)(images, true), images.to_vector<double>());
  check_values(L::MaxNumBoundingBoxes(3)(images, false), images.to_vector<double>());
  CHECK(config_of(*L::MaxNumBoundingBoxes(3).ptr()) ==
        nlohmann::json::parse(R"({"max_number": 3, "fill_value": -1, "data_format": "channels_last",
                                  "bounding_box_format": null})"));
}

TEST_CASE("MaxNumBoundingBoxes: Keras's errors") {
  const k::Tensor images = k::zeros({2, 4, 4, 3});
  CHECK_THROWS_WITH_AS(L::MaxNumBoundingBoxes(3, {.name = "max_num_bounding_boxes"})->call_data({images, L::BoundingBoxes{k::zeros({2, 3, 4}), k::zeros({2, 3})}}),
                       "Layer 'max_num_bounding_boxes' (MaxNumBoundingBoxes): you passed an input with a 'bounding_boxes' "
                       "key, but you didn't specify a bounding box format. Pass a `bounding_box_format` argument to "
                       "your MaxNumBoundingBoxes layer, e.g. `bounding_box_format='xyxy'`.",
                       k::ValueError);
  CHECK_THROWS_WITH_AS(L::MaxNumBoundingBoxes(3, {.name = "max_num_bounding_boxes"})->transform_bounding_boxes({k::zeros({2, 3, 5}), k::zeros({2, 3})}),
                       "Layer 'max_num_bounding_boxes' (MaxNumBoundingBoxes): expected bounding_boxes with boxes of "
                       "shape (batch, num_boxes, 4) and labels of shape (batch, num_boxes) (or (num_boxes, 4) and "
                       "(num_boxes,) for one image). Received: boxes.shape=(2, 3, 5), labels.shape=(2, 3)",
                       k::ValueError);
  CHECK_THROWS_AS(L::MaxNumBoundingBoxes(3)->transform_bounding_boxes({k::zeros({2, 3, 4}), k::zeros({2, 2})}),
                  k::ValueError);
  CHECK_THROWS_AS(L::MaxNumBoundingBoxes(-1), k::ValueError);
  CHECK_THROWS_AS(L::MaxNumBoundingBoxes(3)(k::zeros({2, 3})), k::ValueError);
}

TEST_CASE("RandAugment: Keras 3.15's values with the op choices fixed") {
  const k::Tensor c = image_c();
  L::RandAugment layer;
  check_values(layer->transform_images(c, {9, 10}), {12, 81, 151, 220, 23, 93, 162, 255, 23, 104, 185, 255, 46, 128, 185, 0, 70, 128, 209, 12, 70, 151,
               232, 0, 93, 174, 232, 35, 116, 162, 255, 58, 104, 197, 0, 46, 139, 220, 35, 81, 162, 255, 23, 104,
               197, 255, 46, 139, 185, 0, 81, 128, 209, 23, 70, 151, 232, 0, 93, 174, 232, 35, 116, 174, 255, 58,
               116, 197, 0, 58, 139, 209}, 1e-5);
  check_values(layer->transform_images(c, {10, 9}), {11, 85.3647995, 140.135132, 222, 24.0772533, 76.9594574, 166, 254.999985, 12.6351357, 111,
               193.712448, 255, 55, 133.519318, 191.82431, 0, 73.3261719, 127.499992, 211, 12.0386257, 64.3243256,
               155, 242.961365, 0, 100, 181.673813, 242.364868, 44, 121.480675, 178.040527, 255, 61.2875519,
               114.864861, 200, 0, 51.6891861, 140.135132, 222, 24.0772514, 76.9594574, 166, 254.999985,
               12.6351337, 111, 193.712433, 255, 55, 133.519302, 190.675674, 0, 73.3261795, 127.499992, 211,
               12.0386257, 64.3243179, 155, 242.961365, 0, 100, 181.673813, 242.364868, 44, 121.480682,
               178.040543, 255, 60.1931305, 114.864861, 200, 0, 51.6891861, 144, 230.922729}, 1e-5);
  check_values(layer->transform_images(c, {10, 10}), {11, 89, 155, 222, 33, 100, 166, 244, 44, 111, 188, 255, 55, 133, 200, 0, 78, 144, 211, 22, 89, 155,
               233, 33, 100, 177, 244, 44, 122, 188, 255, 67, 133, 200, 11, 78, 144, 222, 22, 89, 166, 233, 33,
               111, 177, 244, 55, 122, 188, 0, 67, 133, 211, 11, 78, 155, 222, 22, 100, 166, 233, 44, 111, 177,
               255, 55, 122, 200, 0, 67, 144, 211}, 1e-5);
  check_values(L::RandAugment({.value_range = {-1, 2}, .num_ops = 1})->transform_images(c / 100.0, {9}), {-0.923077047, -0.094674468, 0.591463804, 1.52307653, -0.822485149, -0.158536553, 0.89230752, 2,
               -0.908536494, 0.261538267, 1.27218914, 2, -0.369230866, 0.544378757, 1.24999976, -1, -0.183431983,
               0.5, 1.44615388, -0.911242485, -0.249999523, 0.81538415, 1.91124296, -1, 0.184615016, 1.1834321,
               1.90853643, -0.446153998, 0.455621004, 1.15853691, 2, -0.27218926, 0.408536792, 1.36923003, -1,
               -0.341463268, 0.591463685, 1.52307653, -0.822485149, -0.158536792, 0.892307758, 2, -0.908536673,
               0.261538386, 1.27218914, 2, -0.36923039, 0.544378757, 1.24999952, -1, -0.183432102, 0.499999881,
               1.44615436, -0.911242843, -0.249999762, 0.815384626, 1.9112432, -1, 0.184615254, 1.18343234,
               1.90853643, -0.44615382, 0.455621004, 1.15853667, 2, -0.272189498, 0.408536553, 1.36923075, -1,
               -0.341463089, 0.738461733, 1.82248521}, 1e-5);
  CHECK(L::RandAugmentImpl::op_names()[9] == "auto_contrast");
  CHECK_THROWS_AS(layer->transform_images(c, {11}), k::ValueError);
}

TEST_CASE("AugMix: Keras 3.15's values with the draws fixed") {
  const k::Tensor c = image_c();
  L::AugMix layer;
  const L::AugMixTransformation t{{0.25, 0.75}, 0.4, {{"auto_contrast"}, {"equalization", "auto_contrast"}}};
  check_values(layer->transform_images(c, t), {12.930769, 78.1570587, 132.751984, 202.66925, 24.898077, 78.3604126, 153.026932, 228.399994,
               23.4519691, 103.834625, 175.141022, 233.200012, 54.1923065, 122.374527, 178.808441, 5, 69.608017,
               123.899994, 194.738464, 16.3490391, 69.5084457, 145.096161, 219.850952, 14.6000004, 95.9038544,
               166.59198, 224.348053, 46.2615395, 113.82547, 169.439575, 236, 61.0589867, 115.048035, 186.807709,
               7.80000019, 60.6564789, 133.551971, 203.469238, 25.6980782, 79.1604156, 153.826935, 229.200012,
               24.2519684, 104.634628, 175.941025, 234, 54.9923096, 123.174515, 179.091553, 5.80000019,
               70.4080276, 124.699997, 195.538467, 17.1490383, 70.3084488, 145.896149, 220.65097, 15.4000006,
               96.7038574, 167.391983, 225.148041, 47.0615387, 114.625481, 170.239594, 236.800003, 61.366497,
               115.848038, 187.607697, 8.60000038, 61.4564781, 137.965393, 212.101929}, 1e-5);
  // An empty chain keeps the images; the output is clipped to value_range.
  const L::AugMixTransformation t2{{0.5, 0.2, 0.3}, 0.1, {{}, {"equalization"}, {"auto_contrast"}}};
  check_values(L::AugMix({.value_range = {20, 150}})->transform_images(c, t2), {20, 65.8002472, 109.768654, 150, 29.4125118, 73.3965912, 120.530891, 150, 36.9327698, 85.2785263,
               133.686096, 150, 50.0261765, 97.3901062, 146.449997, 20, 61.0023727, 104.939117, 150, 24.6146393,
               68.5670547, 115.871468, 150, 32.1032372, 80.6191177, 128.888214, 150, 45.3667641, 92.5004807,
               142.629868, 150, 56.1127396, 100.109581, 150, 20, 63.7375221, 109.400414, 150, 30.4207458,
               72.7530594, 121.630882, 150, 36.1057091, 86.3785324, 134.051971, 150, 51.1261749, 97.9395218,
               147.549988, 20, 61.8270836, 104.570885, 150, 25.6228733, 67.9235229, 116.971474, 150, 31.2761765,
               81.7191162, 129.254105, 150, 46.4667625, 93.141655, 143.729874, 150, 56.9374428, 99.6495819, 150,
               20.8249989, 63.0022354, 112.220291, 150}, 1e-5);
  CHECK_THROWS_AS(layer->transform_images(c, {{1.0}, 0.5, {{"no_such_op"}}}), k::ValueError);
  CHECK_THROWS_AS(layer->transform_images(c, {{0.5, 0.5}, 0.5, {{}}}), k::ValueError);
}

TEST_CASE("AugMix: the draws' distributions and structure") {
  L::AugMix layer({.seed = 11});
  const int draws = 4000;
  double weight_sum = 0, weight_sq = 0, blend_sum = 0, blend_sq = 0;
  int64_t steps = 0, none = 0;
  for (int i = 0; i < draws; ++i) {
    const L::AugMixTransformation t = layer->get_random_transformation();
    REQUIRE(t.chain_mixing_weights.size() == 3);
    REQUIRE(t.chain_transforms.size() == 3);
    double total = 0;
    for (double w : t.chain_mixing_weights) {
      CHECK(w >= 0.0);
      total += w;
    }
    CHECK(total == doctest::Approx(1.0).epsilon(1e-12));
    weight_sum += t.chain_mixing_weights[0];
    weight_sq += t.chain_mixing_weights[0] * t.chain_mixing_weights[0];
    CHECK((t.weight_sample >= 0.0 && t.weight_sample <= 1.0));
    blend_sum += t.weight_sample;
    blend_sq += t.weight_sample * t.weight_sample;
    for (const auto& chain : t.chain_transforms) {
      CHECK(chain.size() <= 3);
      steps += 3;
      none += 3 - static_cast<int64_t>(chain.size());
      for (const auto& name : chain)
        CHECK(std::find(layer->op_names().begin(), layer->op_names().end(), name) != layer->op_names().end());
    }
  }
  // Dirichlet(1, 1, 1): E w = 1/3, Var w = (1/3)(2/3)/4; Beta(1, 1): mean 1/2, variance 1/12;
  // a step is None with probability 1/12 (eleven ops and None).
  const double wm = weight_sum / draws, bm = blend_sum / draws;
  CHECK(wm == doctest::Approx(1.0 / 3).epsilon(0.05));
  CHECK(weight_sq / draws - wm * wm == doctest::Approx(2.0 / 36).epsilon(0.1));
  CHECK(bm == doctest::Approx(0.5).epsilon(0.05));
  CHECK(blend_sq / draws - bm * bm == doctest::Approx(1.0 / 12).epsilon(0.1));
  CHECK(static_cast<double>(none) / static_cast<double>(steps) == doctest::Approx(1.0 / 12).epsilon(0.15));
  CHECK(layer->op_names().size() == 11);
  CHECK(L::AugMix({.all_ops = false})->op_names().size() == 7);
  // Dirichlet(0.2, 0.2): E w = 1/2, Var w = (1/2)(1/2)/1.4.
  L::AugMix sparse({.num_chains = 2, .alpha = 0.2, .seed = 3});
  double s1 = 0, s2 = 0;
  for (int i = 0; i < draws; ++i) {
    const double w = sparse->get_random_transformation().chain_mixing_weights[0];
    s1 += w;
    s2 += w * w;
  }
  CHECK(s1 / draws == doctest::Approx(0.5).epsilon(0.05));
  CHECK(s2 / draws - (s1 / draws) * (s1 / draws) == doctest::Approx(0.25 / 1.4).epsilon(0.1));
}

TEST_CASE("AugMix and RandAugment: inference, ranges, seeds, configs, gradients") {
  const k::Tensor c = image_c();
  for (bool cf : {false, true}) {
    const std::string df = cf ? "channels_first" : "channels_last";
    L::AugMix mix({.seed = 4, .data_format = df});
    L::RandAugment ra({.num_ops = 3, .seed = 4, .data_format = df});
    // The identity at inference.
    check_values(mix(c, false), c.to_vector<double>());
    check_values(ra(c, false), c.to_vector<double>());
    for (int i = 0; i < 5; ++i) {
      const k::Tensor y = mix(c, true);
      CHECK(y.shape() == c.shape());
      CHECK(k::min(y).item<double>() >= 0.0);
      CHECK(k::max(y).item<double>() <= 255.0);
      CHECK(ra(c, true).shape() == c.shape());
    }
  }
  // The same seed gives the same calls.
  L::AugMix a({.seed = 9}), b({.seed = 9});
  L::RandAugment ra1({.seed = 9}), ra2({.seed = 9});
  for (int i = 0; i < 3; ++i) {
    CHECK(k::max(k::abs(a(c, true) - b(c, true))).item<double>() == 0.0);
    CHECK(k::max(k::abs(ra1(c, true) - ra2(c, true))).item<double>() == 0.0);
  }
  // num_ops 0: nothing applied; each op chosen with probability 1/11.
  check_values(L::RandAugment({.num_ops = 0})(c, true), c.to_vector<double>());
  L::RandAugment choose({.num_ops = 2, .seed = 1});
  std::map<int64_t, int> counts;
  const int draws = 5500;
  for (int i = 0; i < draws; ++i)
    for (int64_t op : choose->get_random_transformation()) ++counts[op];
  CHECK(counts.size() == 11);
  for (const auto& [op, n] : counts) CHECK(n / (2.0 * draws) == doctest::Approx(1.0 / 11).epsilon(0.12));
  // Keras's configs, factor written as (lower, upper).
  CHECK(config_of(*L::AugMix().ptr()) == nlohmann::json::parse(R"({"value_range": [0, 255], "num_chains": 3,
        "chain_depth": 3, "factor": [0, 0.3], "alpha": 1.0, "all_ops": true, "interpolation": "bilinear", "seed": null,
        "data_format": "channels_last"})"));
  CHECK(config_of(*L::RandAugment({.factor = L::Factor(0.6, 0.2)}).ptr()) ==
        nlohmann::json::parse(R"({"value_range": [0, 255], "num_ops": 2, "factor": [0.2, 0.6],
        "interpolation": "bilinear", "seed": null, "data_format": "channels_last"})"));
  CHECK_THROWS_WITH_AS(L::AugMix({.factor = 1.5}),
                       "AugMix: the `factor` argument should be a number (or a list of two numbers) in the range [0, 1]. "
                       "Received: factor=1.5",
                       k::ValueError);
  CHECK_THROWS_AS(L::RandAugment({.value_range = {1}}), k::ValueError);
  CHECK_THROWS_AS(L::AugMix({.alpha = 0.0}), k::ValueError);
  // The mixing is differentiable with respect to the images (through AutoContrast here).
  L::AugMix f64({.value_range = {-10, 10}, .dtype = k::float64});
  const L::AugMixTransformation t{{0.3, 0.7}, 0.2, {{}, {"auto_contrast"}}};
  auto r = k::check_gradients([&](const std::vector<k::Tensor>& in) { return f64->transform_images(in[0], t); },
                              {k::random::normal({2, 3, 3, 2}, 0.0, 1.0, k::float64, 5)});
  CHECK_MESSAGE(r.ok, r.report);
}

}  // namespace test_image_policy_values

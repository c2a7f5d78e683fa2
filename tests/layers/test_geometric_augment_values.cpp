// RandomErasing, RandomGaussianBlur, RandomShear, RandomPerspective, MixUp, CutMix and
// RandomElasticTransform in training. Where Keras's draws can be pinned (a range of one
// value, a probability of 1) the outputs are Keras 3.15's own (JAX backend, printed for
// the same layers and images); where they cannot (a coin flip, Beta weights, boxes,
// noise), each output is checked to be one that Keras's formulas allow for some draw.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>

#include "kiln/autodiff/gradient_check.h"
#include "kiln/core/error.h"
#include "kiln/layers.h"
#include "kiln/ops/ops.h"
#include "test_util.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_geometric_augment_values {

namespace k = kiln;
namespace L = kiln::layers;

namespace {
double max_diff(const k::Tensor& a, const k::Tensor& b) { return k::max(k::abs(a - b)).item<double>(); }

// (1, 4, 5, 2): (7·i) mod 23, the image the Keras values were printed for.
k::Tensor keras_image() {
  std::vector<float> v;
  for (int i = 0; i < 40; ++i) v.push_back(static_cast<float>((7 * i) % 23));
  return k::Tensor(v, k::Shape{1, 4, 5, 2});
}

void check_training_gradient(const char* label, const std::function<k::LayerPtr()>& make, const k::Shape& shape) {
  k::random::set_seed(11);
  const k::Tensor x = k::random::uniform(shape, 1.0, 9.0, k::float64);
  auto r = k::check_gradients([&](const std::vector<k::Tensor>& in) { return (*make())(in[0], true); }, {x});
  CHECK_MESSAGE(r.ok, label, ": ", r.report);
}

// A (B, H, W, 2) image whose channels are the column and row indices: resampled
// bilinearly inside the image, it gives back the coordinates each pixel sampled.
k::Tensor coordinate_image(int64_t batch, int64_t height, int64_t width) {
  std::vector<float> v;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t y = 0; y < height; ++y)
      for (int64_t x = 0; x < width; ++x) {
        v.push_back(static_cast<float>(x));
        v.push_back(static_cast<float>(y));
      }
  return k::Tensor(v, k::Shape{batch, height, width, 2});
}
}  // namespace

TEST_CASE("RandomErasing: Keras's values when the box covers the image; boxes and probabilities") {
  const k::Tensor x = keras_image();
  // scale (1, 1): the box is the whole image; the fill 300 is clipped to value_range's 255.
  const k::Tensor all = L::RandomErasing({1.0, 1.0}, {.scale = L::Factor(1.0, 1.0), .fill_value = std::vector<double>{300}})(x, true);
  kiln_test::check_values(all, std::vector<double>(40, 255.0));
  // Probability 0 and inference leave the images as they are.
  CHECK(max_diff(L::RandomErasing(0.0, {.fill_value = std::vector<double>{-1}})(x, true), x) == 0);
  CHECK(max_diff(L::RandomErasing()(x, false), x) == 0);
  // scale (0.25, 0.25): sides sqrt(0.25)·(W, H) = (4, 3) of an 8 x 6 image, a box of
  // 3 or 4 whole columns and 3 or 4 rows wherever it starts.
  const k::Tensor ones = k::ones({20, 6, 8, 1});
  const auto v = L::RandomErasing({1.0, 1.0}, {.scale = L::Factor(0.25, 0.25), .fill_value = std::vector<double>{0}, .seed = 3})(ones, true)
                     .to_vector<float>();
  for (int64_t b = 0; b < 20; ++b) {
    std::set<int64_t> rows, cols;
    int64_t erased = 0;
    for (int64_t y = 0; y < 6; ++y)
      for (int64_t xx = 0; xx < 8; ++xx)
        if (v[static_cast<std::size_t>((b * 6 + y) * 8 + xx)] == 0.f) {
          rows.insert(y);
          cols.insert(xx);
          ++erased;
        }
    CHECK(static_cast<int64_t>(rows.size() * cols.size()) == erased);  // a rectangle
    CHECK((cols.size() == 3 || cols.size() == 4));
    CHECK((rows.size() == 3 || rows.size() == 4));
    CHECK(*cols.rbegin() - *cols.begin() + 1 == static_cast<int64_t>(cols.size()));
  }
  // Without a fill value: normal noise times value_range[1], clipped to value_range.
  const k::Tensor noisy = L::RandomErasing({1.0, 1.0}, {.scale = L::Factor(1.0, 1.0), .value_range = {-1, 1}, .seed = 2})(k::zeros({2, 8, 8, 1}), true);
  CHECK(k::max(noisy).item<float>() <= 1.f);
  CHECK(k::min(noisy).item<float>() >= -1.f);
  CHECK(k::max(k::abs(noisy)).item<float>() > 0.5f);
  // One value per channel, along the last axis.
  kiln_test::check_values(L::RandomErasing({1.0, 1.0}, {.scale = L::Factor(1.0, 1.0), .fill_value = std::vector<double>{-1, 7.5, 30},
                                                        .value_range = {0, 20}})(k::zeros({1, 1, 1, 3}), true),
                          {0, 7.5, 20});
  CHECK(L::RandomErasing()->get_config()["factor"] == nlohmann::json::parse("[0.0, 1.0]"));
  CHECK(L::RandomErasing()->get_config()["scale"] == nlohmann::json::parse("[0.02, 0.33]"));
  CHECK(L::RandomErasing(1.0, {.fill_value = std::vector<double>{4}})->get_config()["fill_value"] == 4.0);
  CHECK(L::RandomErasing()->get_config()["fill_value"].is_null());
  CHECK_THROWS_WITH_AS(L::RandomErasing(1.0, {.scale = L::Factor(2.0)}),
                       "RandomErasing: the `scale` argument should be a number (or a list of two numbers) in the range [0, 1]. Received: factor=2",
                       k::ValueError);
  CHECK_THROWS_AS(L::RandomErasing(1.0, {.fill_value = std::vector<double>{1, 2}}), k::ValueError);
}

TEST_CASE("RandomGaussianBlur: Keras's values with the probability and sigma pinned") {
  const k::Tensor x = keras_image();
  kiln_test::check_values(L::RandomGaussianBlur({1.0, 1.0}, {.sigma = L::Factor(0.6, 0.6)})(x, true),
                          {2.080456, 6.944923, 8.64704, 14.48239, 7.524517, 10.16983, 12.81515, 5.857275, 8.33621, 10.01064,
                           3.162928, 8.361589, 11.17328, 15.61994, 9.826719, 12.36332, 16.17328, 7.826718, 10.66724, 12.67587,
                           3.996549, 6.641863, 12.17328, 6.380065, 10.82672, 10.80997, 17.17328, 8.826718, 11.50086, 13.50949,
                           3.887834, 5.562269, 10.81515, 3.857275, 9.692622, 9.147903, 14.98325, 8.025379, 10.14359, 11.81802},
                          1e-4);
  // kernel_size (3, 5): 3 taps along the width, 5 along the height; clipped to [2, 15].
  kiln_test::check_values(L::RandomGaussianBlur({1.0, 1.0}, {.kernel_size = {3, 5}, .sigma = L::Factor(0.8, 0.8), .value_range = {2, 15}})(x, true),
                          {2.71524, 6.587619, 6.645958, 11.62957, 8.140387, 9.146522, 10.39375, 6.641271, 7.523716, 7.396415,
                           4.050242, 7.883812, 9.338585, 13.17821, 11.28861, 11.38212, 14.22894, 9.332469, 10.32465, 10.15853,
                           4.727804, 5.938343, 10.22894, 8.339341, 12.17896, 9.649445, 15, 10.22282, 11.00221, 10.8361,
                           4.01194, 4.005184, 8.349889, 4.860706, 9.844318, 6.971318, 12.09768, 8.345201, 8.820416, 8.693115},
                          1e-4);
  // One channels_first image (2, 4, 5), kernel_size (5, 3), sigma 1.
  const k::Tensor one = k::transpose(x, {0, 3, 1, 2})[0];
  kiln_test::check_values(L::RandomGaussianBlur({1.0, 1.0}, {.kernel_size = {5, 3}, .sigma = L::Factor(1.0, 1.0), .data_format = "channels_first"})(one, true),
                          {2.871811, 5.988888, 7.981013, 9.025216, 6.680919, 4.392573, 8.838479, 11.61663, 13.02115, 9.639775,
                           5.093883, 9.78399, 12.61663, 13.96666, 10.34109, 4.014705, 7.529746, 9.61067, 10.56607, 7.823812,
                           6.43553, 9.883751, 8.985244, 7.107544, 6.167349, 7.762398, 11.66587, 11.46066, 10.036, 8.932312,
                           5.925763, 8.427021, 9.922711, 10.41522, 9.633623, 3.501135, 4.702305, 6.537612, 7.738634, 7.310244},
                          1e-4);
  // Probability 0: no blur, but the clip to value_range still applies (Keras).
  kiln_test::check_values(L::RandomGaussianBlur(0.0, {.value_range = {0, 10}})(x, true),
                          {0, 7, 10, 10, 5, 10, 10, 3, 10, 10, 1, 8, 10, 10, 6, 10, 10, 4, 10, 10,
                           2, 9, 10, 0, 7, 10, 10, 5, 10, 10, 3, 10, 10, 1, 8, 10, 10, 6, 10, 10});
  CHECK(max_diff(L::RandomGaussianBlur()(x, false), x) == 0);
  CHECK(L::RandomGaussianBlur()->get_config()["kernel_size"] == nlohmann::json::parse("[3, 3]"));
  CHECK(L::RandomGaussianBlur()->get_config()["sigma"] == nlohmann::json::parse("[0.0, 1.0]"));
  CHECK_THROWS_WITH_AS(L::RandomGaussianBlur(1.0, {.kernel_size = 4}),
                       "RandomGaussianBlur: kernel_size must be an odd number. Received: kernel_size=4", k::ValueError);
  CHECK_THROWS_AS(L::RandomGaussianBlur(1.0, {.sigma = L::Factor(1.5)}), k::ValueError);
  CHECK_THROWS_AS(L::RandomGaussianBlur(1.5), k::ValueError);
}

TEST_CASE("RandomShear: each image is one of Keras's two outputs for the drawn sign") {
  const k::Tensor x = keras_image();
  const k::Tensor batch = k::concat({x, x, x, x, x, x, x, x}, 0);
  struct Case {
    L::RandomAffineOptions options;
    std::vector<double> plus, minus;  // Keras: shear (0.3, 0.1) and (-0.3, -0.1)
  };
  const std::vector<Case> cases = {
      {{.seed = 5},
       {0, 7, 14.1, 21.1, 5.2, 12.2, 19.3, 3.3, 10.4, 17.4, 5.2, 12.2, 12.4, 17.79, 10.4, 10.5, 17.6, 8.499999, 11.4, 18.4,
        10.4, 3.6, 10.7, 8.500001, 15.6, 8.800001, 15.9, 13.7, 12.4, 19.4, 15.6, 1.9, 8.9, 13.6, 20.6, 6.899999, 13.9, 18.6, 13, 20},
       {0, 7, 14, 21, 5, 12, 19, 3, 10, 17, 1, 8, 10.7, 17.7, 8.5, 15.5, 15.5, 6.4, 13.3, 13.4,
        2, 9, 7.5, 6.22, 12.2, 8.160001, 12.3, 10.1, 17, 10.2, 3, 10, 4.3, 9.000001, 15.9, 2.199999, 9.099999, 13.8, 20.7, 6.999999}},
      {{.fill_mode = "constant", .interpolation = "nearest", .seed = 6, .fill_value = -2.0},
       {0, 7, 14, 21, 5, 12, 19, 3, 10, 17, 1, 8, 15, 22, 6, 13, 20, 4, 11, 18, 16, 0, 7, 14, 21, 5, 12, 19, -2, -2,
        17, 1, 8, 15, 22, 6, 13, 20, -2, -2},
       {0, 7, 14, 21, 5, 12, 19, 3, 10, 17, 1, 8, 15, 22, 6, 13, 20, 4, 11, 18, -2, -2, 2, 9, 16, 0, 7, 14, 21, 5,
        -2, -2, 3, 10, 17, 1, 8, 15, 22, 6}}};
  for (const Case& c : cases) {
    const k::Tensor y = L::RandomShear({0.3, 0.3}, {0.1, 0.1}, c.options)(batch, true);
    const k::Tensor plus = k::cast(k::Tensor(c.plus, k::Shape{4, 5, 2}), k::float32), minus = k::cast(k::Tensor(c.minus, k::Shape{4, 5, 2}), k::float32);
    int pluses = 0, minuses = 0;
    for (int64_t i = 0; i < 8; ++i) {
      const bool p = max_diff(y[i], plus) < 1e-4, m = max_diff(y[i], minus) < 1e-4;
      CHECK((p || m));
      pluses += p;
      minuses += m;
    }
    CHECK(pluses > 0);
    CHECK(minuses > 0);
  }
  CHECK(max_diff(L::RandomShear(0.0, 0.0)(x, true), x) < 1e-6);
  CHECK(max_diff(L::RandomShear(0.5, 0.5)(x, false), x) == 0);
  // Keras writes a number f as (-f, f); reading that back gives the same layer.
  CHECK(L::RandomShear(0.3)->get_config()["x_factor"] == nlohmann::json::parse("[-0.3, 0.3]"));
  CHECK(L::RandomShear(L::Factor(-0.3, 0.3))->get_config()["x_factor"] == nlohmann::json::parse("[-0.3, 0.3]"));
  CHECK_THROWS_WITH_AS(L::RandomShear(-0.5),
                       "RandomShear: the `factor` argument should be a number (or a list of two numbers) in the range [0, 1.0]. Received: input_number=-0.5",
                       k::ValueError);
  CHECK_THROWS_AS(L::RandomShear(0.1, {0.1, 2.0}), k::ValueError);
  CHECK_THROWS_AS(L::RandomShear(0.1, 0.1, {.fill_mode = "mirror"}), k::ValueError);
}

namespace {
// The 8 numbers of the homography through four correspondences (u, v) -> (x, y), Keras's system.
std::array<double, 8> fit_homography(const std::array<std::array<double, 4>, 4>& pts) {
  std::array<std::array<double, 9>, 8> m{};
  for (std::size_t i = 0; i < 4; ++i) {
    const double u = pts[i][0], v = pts[i][1], x = pts[i][2], y = pts[i][3];
    m[i] = {u, v, 1, 0, 0, 0, -x * u, -x * v, x};
    m[i + 4] = {0, 0, 0, u, v, 1, -y * u, -y * v, y};
  }
  for (std::size_t c = 0; c < 8; ++c) {
    std::size_t p = c;
    for (std::size_t r = c + 1; r < 8; ++r)
      if (std::abs(m[r][c]) > std::abs(m[p][c])) p = r;
    std::swap(m[c], m[p]);
    for (std::size_t r = 0; r < 8; ++r)
      if (r != c) {
        const double f = m[r][c] / m[c][c];
        for (std::size_t j = c; j < 9; ++j) m[r][j] -= f * m[c][j];
      }
  }
  std::array<double, 8> h{};
  for (std::size_t i = 0; i < 8; ++i) h[i] = m[i][8] / m[i][i];
  return h;
}
}  // namespace

TEST_CASE("RandomPerspective: each image follows a homography that moves Keras's corners as Keras draws them") {
  const int64_t H = 12, W = 16;
  const double scale = 0.4;
  const k::Tensor coords = coordinate_image(6, H, W);
  const auto v = L::RandomPerspective({1.0, 1.0}, {.scale = scale, .fill_value = -1e6, .seed = 4})(coords, true).to_vector<double>();
  for (int64_t b = 0; b < 6; ++b) {
    INFO("image " << b);
    auto at = [&](int64_t x, int64_t y, int c) { return v[static_cast<std::size_t>(((b * H + y) * W + x) * 2 + c)]; };
    // The map output pixel -> sampled input point, from four pixels well inside.
    std::array<std::array<double, 4>, 4> pts;
    const std::array<std::array<int64_t, 2>, 4> probes = {{{5, 4}, {10, 4}, {5, 8}, {10, 8}}};
    for (std::size_t i = 0; i < 4; ++i) {
      const auto [px, py] = probes[i];
      pts[i] = {static_cast<double>(px), static_cast<double>(py), at(px, py, 0), at(px, py, 1)};
    }
    const auto h = fit_homography(pts);
    // Every pixel whose sample lands inside the image agrees with it.
    int inside = 0;
    for (int64_t y = 0; y < H; ++y)
      for (int64_t x = 0; x < W; ++x) {
        const double k0 = h[6] * x + h[7] * y + 1.0, cx = (h[0] * x + h[1] * y + h[2]) / k0, cy = (h[3] * x + h[4] * y + h[5]) / k0;
        if (cx < 0.01 || cy < 0.01 || cx > W - 1.01 || cy > H - 1.01) continue;
        ++inside;
        CHECK(std::abs(at(x, y, 0) - cx) < 1e-3);
        CHECK(std::abs(at(x, y, 1) - cy) < 1e-3);
      }
    CHECK(inside > H * W / 3);
    // The end point e of each start corner s (h(e) = s) is s·(1 + d), d in [-scale/2, scale/2).
    const std::array<std::array<double, 2>, 4> start = {{{0, 0}, {W - 1.0, 0}, {0, H - 1.0}, {W - 1.0, H - 1.0}}};
    for (const auto& s : start) {
      const double a = h[0] - s[0] * h[6], bb = h[1] - s[0] * h[7], c = h[3] - s[1] * h[6], d = h[4] - s[1] * h[7];
      const double r0 = s[0] - h[2], r1 = s[1] - h[5], det = a * d - bb * c;
      const double ex = (r0 * d - bb * r1) / det, ey = (a * r1 - c * r0) / det;
      for (auto [e, s0] : {std::pair{ex, s[0]}, std::pair{ey, s[1]}}) {
        if (s0 == 0) {
          CHECK(std::abs(e) < 1e-3);  // (0, 0) never moves
        } else {
          CHECK(std::abs(e / s0 - 1.0) <= scale / 2 + 1e-4);
        }
      }
    }
  }
  const k::Tensor x = keras_image();
  CHECK(max_diff(L::RandomPerspective(1.0, {.scale = 0.0})(x, true), x) < 1e-5);  // no displacement
  CHECK(max_diff(L::RandomPerspective(0.0)(x, true), x) == 0);  // probability 0
  CHECK(max_diff(L::RandomPerspective()(x, false), x) == 0);
  CHECK(L::RandomPerspective()->get_config()["scale"] == 1.0);
  CHECK_THROWS_WITH_AS(L::RandomPerspective(1.0, {.scale = 2.0}),
                       "RandomPerspective: The `scale` argument should be a number in the range [0,1]. Received: scale=2", k::ValueError);
  CHECK_THROWS_AS(L::RandomPerspective(1.0, {.interpolation = "bicubic"}), k::ValueError);
}

TEST_CASE("MixUp: a convex combination of each image and its permuted partner, labels alike") {
  // Two images, 0 and 1: swapped, image 0 becomes 1 - λ0 and image 1 becomes λ1.
  L::MixUp mix(0.2, {.seed = 3});
  const k::Tensor x = k::reshape(k::Tensor({0.f, 1.f}), {2, 1, 1, 1});
  const k::Tensor labels = k::Tensor({{1.f, 0.f}, {0.f, 1.f}});
  std::vector<double> lambdas;
  int kept = 0;
  for (int i = 0; i < 1500; ++i) {
    const auto [y, l] = mix->call_with_labels(x, labels);
    const auto yv = y.to_vector<double>(), lv = l.to_vector<double>();
    if (std::abs(yv[0]) < 1e-6 && std::abs(yv[1] - 1) < 1e-6) {  // the identity permutation
      ++kept;
      CHECK(max_diff(l, labels) < 1e-5);
      continue;
    }
    // Image i's label is λ_i·e_i + (1 - λ_i)·e_partner, with the image's λ_i.
    CHECK(std::abs(lv[0] - (1 - yv[0])) < 1e-6);
    CHECK(std::abs(lv[3] - yv[1]) < 1e-6);
    CHECK(std::abs(lv[0] + lv[1] - 1) < 1e-6);
    lambdas.push_back(1 - yv[0]);
    lambdas.push_back(yv[1]);
  }
  CHECK(kept > 600);  // each permutation half of the time
  CHECK(kept < 900);
  // Beta(0.2, 0.2): mean 1/2, variance 1 / (4·(2·0.2 + 1)) = 0.17857.
  double mean = 0, var = 0;
  for (double l : lambdas) mean += l;
  mean /= static_cast<double>(lambdas.size());
  for (double l : lambdas) var += (l - mean) * (l - mean);
  var /= static_cast<double>(lambdas.size());
  CHECK(std::abs(mean - 0.5) < 0.03);
  CHECK(std::abs(var - 0.17857) < 0.015);
  for (double l : lambdas) CHECK((l >= 0 && l <= 1));
  // Images alone: the same mixing; inference: the identity.
  const k::Tensor y = L::MixUp(0.5, {.seed = 1})(k::reshape(k::range(0.0, 8.0, 1.0, k::float32), {4, 1, 2, 1}), true);
  CHECK(y.shape() == k::Shape{4, 1, 2, 1});
  CHECK(max_diff(L::MixUp()(x, false), x) == 0);
  const auto [ix, il] = L::MixUp()->call_with_labels(x, labels, false);
  CHECK(max_diff(ix, x) == 0);
  CHECK(max_diff(il, labels) == 0);
  CHECK(L::MixUp()->get_config()["alpha"] == 0.2);
  CHECK_THROWS_AS(L::MixUp(0.0), k::ValueError);
}

TEST_CASE("CutMix: a box of the partner image, of sides sqrt(1 - λ) and label weight 1 - box area") {
  const int64_t B = 4, H = 6, W = 8;
  std::vector<float> v;  // image i is e_i in every pixel; label i is e_i
  for (int64_t b = 0; b < B; ++b)
    for (int64_t p = 0; p < H * W; ++p)
      for (int64_t c = 0; c < B; ++c) v.push_back(c == b ? 1.f : 0.f);
  const k::Tensor x(v, k::Shape{B, H, W, B});
  const k::Tensor labels = k::one_hot(k::Tensor({0, 1, 2, 3}), B);
  L::CutMix cut(1.0, {.seed = 9});
  int boxes = 0;
  for (int call = 0; call < 40; ++call) {
    const auto [y, l] = cut->call_with_labels(x, labels);
    const auto yv = y.to_vector<float>(), lv = l.to_vector<float>();
    for (int64_t b = 0; b < B; ++b) {
      const double w = lv[static_cast<std::size_t>(b * B + b)];
      int64_t partner = b;
      for (int64_t c = 0; c < B; ++c)
        if (c != b && lv[static_cast<std::size_t>(b * B + c)] > 0) partner = c;
      std::set<int64_t> rows, cols;
      int64_t pasted = 0;
      for (int64_t p = 0; p < H * W; ++p) {
        const float* px = &yv[static_cast<std::size_t>((b * H * W + p) * B)];
        CHECK((px[b] == 1.f || px[partner] == 1.f));  // the image's own pixel or its partner's
        if (partner != b && px[partner] == 1.f) {
          rows.insert(p / W);
          cols.insert(p % W);
          ++pasted;
        }
      }
      if (partner == b) continue;
      // Label weights sum to 1; the box has sides r·W and r·H, r = sqrt(1 - w).
      CHECK(std::abs(w + lv[static_cast<std::size_t>(b * B + partner)] - 1) < 1e-5);
      const double r = std::sqrt(std::max(0.0, 1 - w));
      CHECK(static_cast<int64_t>(rows.size() * cols.size()) == pasted);
      if (pasted == 0) continue;
      ++boxes;
      CHECK(static_cast<double>(cols.size()) >= std::floor(r * W - 1e-4));
      CHECK(static_cast<double>(cols.size()) <= std::floor(r * W + 1e-4) + 1);
      CHECK(static_cast<double>(rows.size()) >= std::floor(r * H - 1e-4));
      CHECK(static_cast<double>(rows.size()) <= std::floor(r * H + 1e-4) + 1);
    }
  }
  CHECK(boxes > 20);
  // One image: nothing to mix with (Keras returns it unchanged); inference: the identity.
  CHECK(max_diff(L::CutMix()(x[0], true), x[0]) == 0);
  CHECK(max_diff(L::CutMix()(x, false), x) == 0);
  CHECK(L::CutMix(0.5)->get_config()["factor"] == nlohmann::json::parse("[0.0, 0.5]"));
  CHECK_THROWS_WITH_AS(L::CutMix(2.0),
                       "CutMix: the `factor` argument should be a number (or a list of two numbers) in the range [0, 1]. Received: factor=2",
                       k::ValueError);
}

TEST_CASE("RandomElasticTransform: one smoothed displacement for both axes, resampled bilinearly") {
  const int64_t H = 24, W = 24;
  // Channels: column, row, and values to resample.
  k::random::set_seed(4);
  const k::Tensor noise = k::random::uniform({2, H, W, 1}, 0.0, 9.0);
  const k::Tensor x = k::concat({coordinate_image(2, H, W), noise}, 3);
  const auto y = L::RandomElasticTransform({1.0, 1.0}, {.scale = L::Factor(1.0, 1.0), .seed = 7})(x, true).to_vector<double>();
  const auto n = noise.to_vector<double>();
  // alpha = 0.1·24 = 2.4, sigma = 0.05·24 = 1.2; displacements stay well under 3 pixels.
  int moved = 0;
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t r = 4; r < H - 4; ++r)
      for (int64_t c = 4; c < W - 4; ++c) {
        const std::size_t p = static_cast<std::size_t>((b * H + r) * W + c);
        const double dx = y[p * 3] - static_cast<double>(c), dy = y[p * 3 + 1] - static_cast<double>(r);
        CHECK(std::abs(dx - dy) < 1e-4);  // Keras draws dx and dy from one seed: the same field
        CHECK(std::abs(dx) < 3.5);
        moved += std::abs(dx) > 0.05;
        // The third channel is the noise image sampled bilinearly at (r + d, c + d).
        const double sr = static_cast<double>(r) + dy, sc = static_cast<double>(c) + dx;
        const int64_t r0 = static_cast<int64_t>(std::floor(sr)), c0 = static_cast<int64_t>(std::floor(sc));
        const double fr = sr - static_cast<double>(r0), fc = sc - static_cast<double>(c0);
        auto at = [&](int64_t rr, int64_t cc) { return n[static_cast<std::size_t>((b * H + rr) * W + cc)]; };
        const double expected = (1 - fr) * ((1 - fc) * at(r0, c0) + fc * at(r0, c0 + 1)) + fr * ((1 - fc) * at(r0 + 1, c0) + fc * at(r0 + 1, c0 + 1));
        CHECK(std::abs(y[p * 3 + 2] - expected) < 1e-3);
      }
  CHECK(moved > 100);
  const k::Tensor img = keras_image();
  // A zero scale or probability bound returns the images unclipped (Keras returns early).
  CHECK(max_diff(L::RandomElasticTransform(1.0, {.scale = L::Factor(0.0), .value_range = {0, 1}})(img, true), img) == 0);
  CHECK(max_diff(L::RandomElasticTransform(0.0, {.value_range = {0, 1}})(img, true), img) == 0);
  CHECK(max_diff(L::RandomElasticTransform()(img, false), img) == 0);
  CHECK(L::RandomElasticTransform()->get_config()["scale"] == nlohmann::json::parse("[0.0, 1.0]"));
  CHECK_THROWS_AS(L::RandomElasticTransform(1.0, {.fill_mode = "tile"}), k::ValueError);
  CHECK_THROWS_AS(L::RandomElasticTransform(1.0, {.scale = L::Factor(3.0)}), k::ValueError);
  CHECK_NOTHROW(L::RandomElasticTransform(1.0, {.fill_mode = "mirror"}));
}

TEST_CASE("the new image augmentations in training are differentiable with respect to the images") {
  check_training_gradient("RandomErasing", [] { return L::RandomErasing({1.0, 1.0}, {.fill_value = std::vector<double>{0}, .seed = 1, .dtype = k::float64}).ptr(); }, {2, 5, 4, 2});
  check_training_gradient("RandomGaussianBlur",
                          [] { return L::RandomGaussianBlur({1.0, 1.0}, {.kernel_size = {3, 5}, .seed = 2, .dtype = k::float64}).ptr(); }, {2, 5, 6, 1});
  check_training_gradient("RandomShear", [] { return L::RandomShear(0.3, 0.2, {.seed = 3, .dtype = k::float64}).ptr(); }, {2, 5, 4, 2});
  check_training_gradient("RandomPerspective",
                          [] { return L::RandomPerspective({1.0, 1.0}, {.scale = 0.3, .seed = 4, .dtype = k::float64}).ptr(); }, {2, 5, 6, 1});
  check_training_gradient("MixUp", [] { return L::MixUp(0.4, {.seed = 5, .dtype = k::float64}).ptr(); }, {3, 3, 4, 1});
  check_training_gradient("CutMix", [] { return L::CutMix(1.0, {.seed = 6, .dtype = k::float64}).ptr(); }, {3, 4, 4, 1});
  check_training_gradient("RandomElasticTransform",
                          [] { return L::RandomElasticTransform({1.0, 1.0}, {.value_range = {0, 10}, .seed = 7, .dtype = k::float64}).ptr(); },
                          {2, 6, 6, 1});
}

}  // namespace test_geometric_augment_values

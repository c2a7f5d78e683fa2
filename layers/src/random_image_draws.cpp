// The random draws and masks that RandomErasing, MixUp, CutMix and the
// probability-gated augmentations share: boxes, Beta and Dirichlet weights, permutations.
#include <algorithm>
#include <cmath>
#include <random>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/random.h"
#include "random_image_utils.h"

namespace kiln::layers::detail {

namespace {

std::mt19937_64 generator(std::optional<uint64_t> seed) { return std::mt19937_64(seed ? *seed : random::next_seed()); }

// log of a Gamma(a, 1) draw. Below a = 1, Gamma(a) = Gamma(a + 1) · U^(1/a), taken in
// logs: a Gamma(1e-6) draw itself underflows to zero.
double log_gamma_draw(double a, std::mt19937_64& g) {
  if (a >= 1.0) return std::log(std::gamma_distribution<double>(a, 1.0)(g));
  std::uniform_real_distribution<double> u(0.0, 1.0);
  double v;
  do v = u(g);
  while (v == 0.0);
  return std::log(std::gamma_distribution<double>(a + 1.0, 1.0)(g)) + std::log(v) / a;
}

}  // namespace

std::vector<std::pair<double, double>> crop_bounds(const std::vector<double>& ratios, int64_t length,
                                                   std::optional<uint64_t> seed) {
  const auto u = uniform_draws(static_cast<int64_t>(ratios.size()), 0.0, 1.0, seed);
  std::vector<std::pair<double, double>> bounds;
  const double len = static_cast<double>(length);
  for (std::size_t i = 0; i < ratios.size(); ++i) {
    const double crop = ratios[i] * len, start = u[i] * (len - crop);
    bounds.emplace_back(start, start + crop);
  }
  return bounds;
}

Tensor box_mask(const std::vector<Box>& boxes, int64_t height, int64_t width) {
  const int64_t n = static_cast<int64_t>(boxes.size());
  std::vector<float> m(static_cast<std::size_t>(n * height * width), 0.f);
  std::size_t p = 0;
  for (const Box& b : boxes)
    for (int64_t y = 0; y < height; ++y)
      for (int64_t x = 0; x < width; ++x, ++p) {
        const double fx = static_cast<double>(x), fy = static_cast<double>(y);
        m[p] = fx >= b.x0 && fx < b.x1 && fy >= b.y0 && fy < b.y1 ? 1.f : 0.f;
      }
  const Tensor t(m, Shape{n, height, width, 1});
  return greater(t, scalar_like(0.5, t));
}

std::vector<double> beta_draws(int64_t n, double a, double b, std::optional<uint64_t> seed) {
  auto g = generator(seed);
  std::vector<double> out;
  for (int64_t i = 0; i < n; ++i) {
    const double la = log_gamma_draw(a, g), lb = log_gamma_draw(b, g), top = std::max(la, lb);
    const double ga = std::exp(la - top), gb = std::exp(lb - top);
    out.push_back(ga / (ga + gb));
  }
  return out;
}

std::vector<double> dirichlet_draw(int64_t k, double alpha, std::optional<uint64_t> seed) {
  auto g = generator(seed);
  std::vector<double> logs;
  for (int64_t i = 0; i < k; ++i) logs.push_back(log_gamma_draw(alpha, g));
  const double top = *std::max_element(logs.begin(), logs.end());
  double total = 0.0;
  for (double& l : logs) total += (l = std::exp(l - top));
  for (double& l : logs) l /= total;
  return logs;
}

std::vector<bool> apply_draws(int64_t n, double lower, double upper, std::optional<uint64_t> p_seed,
                              std::optional<uint64_t> u_seed) {
  const auto p = uniform_draws(n, lower, upper, p_seed), u = uniform_draws(n, 0.0, 1.0, u_seed);
  std::vector<bool> apply;
  for (std::size_t i = 0; i < p.size(); ++i) apply.push_back(u[i] < p[i]);
  return apply;
}

Tensor per_image_mask(const std::vector<bool>& choose) {
  std::vector<float> v;
  for (bool c : choose) v.push_back(c ? 1.f : 0.f);
  const Tensor t(v, Shape{static_cast<int64_t>(v.size()), 1, 1, 1});
  return greater(t, scalar_like(0.5, t));
}

Tensor take_batch(const Tensor& images, const std::vector<int64_t>& permutation) {
  std::vector<int32_t> idx(permutation.begin(), permutation.end());
  return gather(images, Tensor(idx, Shape{static_cast<int64_t>(idx.size())}), 0);
}

std::vector<int64_t> permutation_draw(int64_t n, std::optional<uint64_t> seed) {
  return random::permutation(n, seed).to_vector<int64_t>();
}

}  // namespace kiln::layers::detail

#pragma once
// Private: the argument checks and config codec of the image augmentation layers,
// and their affine resampler (Keras's JAX backend image.affine_transform, i.e.
// jax.scipy.ndimage.map_coordinates), from differentiable ops.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kiln/layers/random_image_layer.h"
#include "config_fields.h"

namespace kiln::layers {
// Found by argument-dependent lookup from the generated configs: a number stays a number.
Config config_value(const Factor& f);
void read_value(const config_io::ConfigReader& r, const char* key, Factor& f);
}  // namespace kiln::layers

namespace kiln::layers::detail {

/// A number as Python prints it in Keras's messages (%g), and a factor as a number or list.
std::string number_text(double v);
std::string factor_text(const Factor& f);
/// BaseImagePreprocessingLayer._set_factor (and the layers' _set_factor_by_name for
/// `arg`, e.g. "scale"): (lower, upper) within [lo, hi]; a number f gives (max(-|f|, lo), |f|).
std::pair<double, double> base_factor_range(const std::string& cls, const Factor& f, double lo, double hi,
                                            const std::string& arg = "factor");
/// RandomZoom's and RandomTranslation's own _set_factor: a number f gives (-|f|, |f|);
/// each value must lie in [-1, 1] (RandomZoom: (-1, 1]).
std::pair<double, double> axis_factor_range(const std::string& cls, const std::string& arg, const Factor& f,
                                            bool zoom);
/// fill_mode in reflect/wrap/constant/nearest and interpolation in nearest/bilinear
/// (Keras raises NotImplementedError; here a ValueError with its text).
void check_fill_and_interpolation(const std::string& fill_mode, const std::string& interpolation);

/// Keras's 8-number transform [a0, a1, a2, b0, b1, b2, c0, c1]: output pixel (x, y)
/// samples the input at column (a0·x + a1·y + a2) / k and row (b0·x + b1·y + b2) / k,
/// k = c0·x + c1·y + 1 (1 for the affine layers, whose c0 = c1 = 0).
using AffineTransform = std::array<double, 8>;
/// images: (B, H, W, C); one transform per image. "bilinear" or "nearest" (round half
/// away from zero); outside the image, fill_mode "constant" (fill_value), "nearest"
/// (edge), "wrap" (tile), "reflect" (d c b a | a b c d | d c b a) or "mirror"
/// (d c b | a b c d | c b a). Differentiable with respect to the images.
Tensor affine_transform(const Tensor& images, const std::vector<AffineTransform>& transforms,
                        const std::string& interpolation, const std::string& fill_mode, double fill_value);
/// jax.scipy.ndimage.map_coordinates on every channel of (B, H, W, C) images: output
/// pixel p of image b samples the input at (rows[b·H·W + p], cols[b·H·W + p]).
Tensor map_coordinates(const Tensor& images, const std::vector<double>& rows, const std::vector<double>& cols,
                       const std::string& interpolation, const std::string& fill_mode, double fill_value);

/// The normalised Gaussian of `size` taps, exp(-x²/2σ²) at x = i - (size - 1)/2
/// (the JAX backend's _get_gaussian_kernel1d).
std::vector<double> gaussian_kernel1d(int size, double sigma);
/// keras.ops.image.gaussian_blur of (B, H, W, C): each channel convolved with
/// outer(kernel_y, kernel_x), zero padding ("same"); kernel sizes odd.
Tensor gaussian_blur(const Tensor& images, const std::vector<double>& kernel_x, const std::vector<double>& kernel_y);

/// One image's box: columns [x0, x1), rows [y0, y1), in pixel units.
struct Box {
  double x0, x1, y0, y1;
};
/// _compute_crop_bounds along one axis of `length`: a window of ratio·length starting at
/// u·(length - ratio·length), u uniform in [0, 1); one (start, end) per ratio.
std::vector<std::pair<double, double>> crop_bounds(const std::vector<double>& ratios, int64_t length,
                                                   std::optional<uint64_t> seed);
/// A (B, H, W, 1) bool mask, true at pixel (x, y) of image b when x0 <= x < x1 and y0 <= y < y1.
Tensor box_mask(const std::vector<Box>& boxes, int64_t height, int64_t width);
/// Beta(a, b) draws, one per image (keras.random.beta), from Gamma draws in log space
/// so that small concentrations do not round both to zero.
std::vector<double> beta_draws(int64_t n, double a, double b, std::optional<uint64_t> seed);
/// One Dirichlet(alpha, ..., alpha) draw of `k` weights summing to 1: Gamma(alpha) draws
/// over their sum (AugMix's _sample_from_dirichlet), taken in log space as beta_draws.
std::vector<double> dirichlet_draw(int64_t k, double alpha, std::optional<uint64_t> seed);
/// Bernoulli choices, one per image: u < p with p uniform in [lower, upper) and u in [0, 1)
/// (the "apply with probability factor" draws of RandomErasing and others).
std::vector<bool> apply_draws(int64_t n, double lower, double upper, std::optional<uint64_t> p_seed,
                              std::optional<uint64_t> u_seed);
/// (B, 1, 1, 1) bool tensor of per-image choices.
Tensor per_image_mask(const std::vector<bool>& choose);
/// images[permutation] along the batch axis.
Tensor take_batch(const Tensor& images, const std::vector<int64_t>& permutation);
/// A random permutation of 0..n-1.
std::vector<int64_t> permutation_draw(int64_t n, std::optional<uint64_t> seed);
/// Uniform draws in [lo, hi), one per image, from the call's seed (or the global generator).
std::vector<double> uniform_draws(int64_t n, double lo, double hi, std::optional<uint64_t> seed);

}  // namespace kiln::layers::detail

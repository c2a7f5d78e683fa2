#pragma once
// Private: the argument checks and config codec of the image augmentation layers,
// and their affine resampler (Keras's JAX backend image.affine_transform, i.e.
// jax.scipy.ndimage.map_coordinates), from differentiable ops.
#include <array>
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

/// BaseImagePreprocessingLayer._set_factor: (lower, upper) within [lo, hi]; a number f
/// gives (max(-|f|, lo), |f|).
std::pair<double, double> base_factor_range(const std::string& cls, const Factor& f, double lo, double hi);
/// RandomZoom's and RandomTranslation's own _set_factor: a number f gives (-|f|, |f|);
/// each value must lie in [-1, 1] (RandomZoom: (-1, 1]).
std::pair<double, double> axis_factor_range(const std::string& cls, const std::string& arg, const Factor& f,
                                            bool zoom);
/// fill_mode in reflect/wrap/constant/nearest and interpolation in nearest/bilinear
/// (Keras raises NotImplementedError; here a ValueError with its text).
void check_fill_and_interpolation(const std::string& fill_mode, const std::string& interpolation);

/// Keras's 8-number transform [a0, a1, a2, b0, b1, b2, c0, c1]: output pixel (x, y)
/// samples the input at column a0·x + a1·y + a2 and row b0·x + b1·y + b2.
using AffineTransform = std::array<double, 8>;
/// images: (B, H, W, C); one transform per image. "bilinear" or "nearest" (round half
/// away from zero); outside the image, fill_mode "constant" (fill_value), "nearest"
/// (edge), "wrap" (tile) or "reflect" (d c b a | a b c d | d c b a). Differentiable
/// with respect to the images.
Tensor affine_transform(const Tensor& images, const std::vector<AffineTransform>& transforms,
                        const std::string& interpolation, const std::string& fill_mode, double fill_value);
/// Uniform draws in [lo, hi), one per image, from the call's seed (or the global generator).
std::vector<double> uniform_draws(int64_t n, double lo, double hi, std::optional<uint64_t> seed);

}  // namespace kiln::layers::detail

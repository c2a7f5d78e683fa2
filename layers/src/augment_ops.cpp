// The op layers of RandAugment and AugMix, as Keras 3.15's constructors build them.
#include "augment_ops.h"

#include <algorithm>
#include <cmath>

#include "kiln/core/error.h"
#include "kiln/layers/color_adjust.h"
#include "kiln/layers/color_augment.h"
#include "kiln/layers/random_affine_transforms.h"
#include "kiln/layers/random_color.h"
#include "random_image_utils.h"

namespace kiln::layers::detail {

namespace {

RandomAffineOptions affine_options(const AugmentSetup& s, std::optional<uint64_t> seed) {
  RandomAffineOptions o;
  o.interpolation = s.interpolation;
  o.seed = seed;
  o.data_format = s.data_format;
  o.dtype = s.dtype;
  return o;
}

RandomColorOptions color_options(const AugmentSetup& s, std::optional<uint64_t> seed) {
  RandomColorOptions o;
  o.value_range = s.value_range;
  o.seed = seed;
  o.data_format = s.data_format;
  o.dtype = s.dtype;
  return o;
}

}  // namespace

LayerPtr make_augment_op(const std::string& name, const AugmentSetup& s, uint64_t index) {
  const Factor f(s.factor.first, s.factor.second);
  const std::optional<uint64_t> seed = s.seed ? std::optional<uint64_t>(*s.seed + index) : std::nullopt;
  if (name == "random_shear") return RandomShear(f, f, affine_options(s, seed)).ptr();
  if (name == "random_translation") return RandomTranslation(f, f, affine_options(s, seed)).ptr();
  if (name == "random_rotation") return RandomRotation(f, affine_options(s, seed)).ptr();
  if (name == "random_brightness") return RandomBrightness(f, color_options(s, seed)).ptr();
  if (name == "random_color_degeneration") return RandomColorDegeneration(f, color_options(s, seed)).ptr();
  if (name == "random_contrast") return RandomContrast(f, color_options(s, seed)).ptr();
  if (name == "random_sharpness") return RandomSharpness(f, color_options(s, seed)).ptr();
  if (name == "random_posterization") {
    // Keras: factor=max(1, int(8 * factor[1])), a number n giving the range (1, n).
    const double bits = std::max(1.0, std::trunc(8.0 * s.factor.second));
    return RandomPosterization(Factor(bits), color_options(s, seed)).ptr();
  }
  if (name == "solarization") {
    SolarizationOptions o{.addition_factor = f, .threshold_factor = f, .value_range = s.value_range, .seed = seed,
                          .data_format = s.data_format};
    o.dtype = s.dtype;
    return Solarization(o).ptr();
  }
  if (name == "auto_contrast") {
    AutoContrastOptions o{.value_range = s.value_range, .data_format = s.data_format};
    o.dtype = s.dtype;
    return AutoContrast(o).ptr();
  }
  if (name == "equalization") {
    EqualizationOptions o{.value_range = s.value_range, .data_format = s.data_format};
    o.dtype = s.dtype;
    return Equalization(o).ptr();
  }
  throw ValueError("unknown augmentation op '" + name + "'");
}

std::vector<int64_t> choice_draws(int64_t n, int64_t k, std::optional<uint64_t> seed) {
  std::vector<int64_t> out;
  for (double u : uniform_draws(n, 0.0, static_cast<double>(k), seed))
    out.push_back(std::min(k - 1, static_cast<int64_t>(std::floor(u))));
  return out;
}

}  // namespace kiln::layers::detail

#pragma once
// Private: the augmentation layers that Keras 3.15's RandAugment and AugMix compose
// (rand_augment.py, aug_mix.py), built as those classes build them from one factor.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kiln/core/dtype.h"
#include "kiln/nn/layer.h"

namespace kiln::layers::detail {

/// What RandAugment and AugMix hand every op layer.
struct AugmentSetup {
  std::pair<double, double> factor;  ///< (lower, upper), within [0, 1].
  std::vector<double> value_range;
  std::string interpolation;
  std::optional<uint64_t> seed;
  std::string data_format;
  DType dtype = DType::float32;
};

/// The op layer of Keras's attribute `name` ("random_shear", "random_translation",
/// "random_rotation", "random_brightness", "random_color_degeneration", "random_contrast",
/// "random_sharpness", "random_posterization", "solarization", "auto_contrast",
/// "equalization"), with `factor` as its factors (RandomPosterization: max(1, int(8 upper))).
/// A seeded setup gives op `index` the seed + index, so that the ops draw independently.
LayerPtr make_augment_op(const std::string& name, const AugmentSetup& setup, uint64_t index);

/// `n` integers uniform in [0, k).
std::vector<int64_t> choice_draws(int64_t n, int64_t k, std::optional<uint64_t> seed);

}  // namespace kiln::layers::detail

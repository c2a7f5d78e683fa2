#pragma once
// RandomErasing (Keras 3.15's random_erasing.py): in training, each image is erased
// with probability p (p uniform in the factor's [lower, upper), default [0, 1)) over a
// random box, replaced by fill_value clipped to value_range; the identity at inference.
//   L::RandomErasing()                                  box sides sqrt(s)·W and sqrt(s)·H for
//                                                       s uniform in scale = [0.02, 0.33), one s
//                                                       per side; fill: normal noise · value_range[1]
//   L::RandomErasing({1.0, 1.0}, {.fill_value = std::vector<double>{0}})   always, with zeros
//   .fill_value = std::vector<double>{r, g, b}           one value per entry of the input's last axis
// Images (batch, H, W, C) or one (H, W, C) (channels_first: C first). Differentiable
// with respect to the images.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/layers/random_image_layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of RandomErasing (Keras's arguments after factor).
struct RandomErasingOptions {
  Factor scale = Factor(0.02, 0.33);  ///< Range of the erased area's fraction per side, squared: values in [0, 1].
  /// None: normal noise times value_range[1]; one number; or one per entry of the input's last axis.
  std::optional<std::vector<double>> fill_value;
  std::vector<double> value_range = {0, 255};  ///< The (low, high) range of pixel values; the fill is clipped to it.
  std::optional<uint64_t> seed;  ///< Seed of the draws; none: the global generator.
  std::string data_format = "channels_last";  ///< "channels_last" (batch, H, W, C) or "channels_first".
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(RandomErasingOptions, scale, fill_value, value_range, seed, data_format)
};

/// Erases a random box of each image in training, with a per-image probability drawn from
/// the factor (Keras's `RandomErasing`); the identity at inference. Output shape = input
/// shape. Users create it through the handle `kiln::layers::RandomErasing(factor, {...})`.
class RandomErasingImpl : public RandomImageLayer {
 public:
  using Options = RandomErasingOptions;  ///< The options struct the constructor takes.
  /// `factor`: the probability range, f (the range [0, f)) or (lower, upper), within [0, 1].
  explicit RandomErasingImpl(Factor factor = 1.0, RandomErasingOptions options = {});
  std::string class_name() const override { return "RandomErasing"; }
  Config get_config() const override;
  KILN_ARGS(RandomErasingImpl, factor_)
  const RandomErasingOptions& options() const { return o_; }  ///< The options this layer was created with.

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  Tensor fill(const Tensor& x);  // the (B, H, W, C) replacement values, clipped to value_range
  Factor factor_;  // (lower, upper)
  RandomErasingOptions o_;
};

/// The handle users create and call RandomErasingImpl through.
KILN_LAYER_HANDLE(RandomErasing);

}  // namespace kiln::layers

#pragma once
// RandomRotation, RandomZoom, RandomTranslation and RandomShear: in training, each image
// is resampled through a random affine map (Keras 3's matrices); the identity at inference.
//   L::RandomRotation(0.1)          angle uniform in [-0.1, 0.1)·360 degrees about the centre
//   L::RandomRotation({-0.2, 0.3})  angle in [-0.2, 0.3)·360 degrees
//   L::RandomZoom(0.2)              height scale uniform in [0.8, 1.2) (the sampled input
//                                   window; > 1 zooms out), width scale the same draw
//   L::RandomZoom(0.2, {0.1})       width scale drawn on its own in [0.9, 1.1)
//   L::RandomTranslation(0.1, 0.2)  shifts uniform in [-0.1, 0.1)·H rows, [-0.2, 0.2)·W columns
//   L::RandomShear(0.3, {0.1, 0.2}) output (x, y) samples input (x + sx·y, y + sy·x), sx uniform
//                                   in [-0.3, 0.3), sy in [0.1, 0.2), both negated together on a
//                                   coin flip (Keras 3.15's draws; no centring)
// fill_mode, for samples outside the image: "reflect" (the default; d c b a | a b c d |
// d c b a), "wrap", "constant" (fill_value) or "nearest"; interpolation "bilinear" (the
// default) or "nearest". Images (batch, H, W, C) or one (H, W, C) (channels_first: C
// first). Differentiable with respect to the images.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/layers/random_image_layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of RandomRotation, RandomZoom and RandomTranslation (Keras's arguments after the factors).
struct RandomAffineOptions {
  std::string fill_mode = "reflect";  ///< Outside the image: "reflect", "wrap", "constant" or "nearest".
  std::string interpolation = "bilinear";  ///< "bilinear" or "nearest".
  std::optional<uint64_t> seed;  ///< Seed of the draws; none: the global generator.
  double fill_value = 0.0;  ///< The value of "constant" fill_mode.
  std::string data_format = "channels_last";  ///< "channels_last" (batch, H, W, C) or "channels_first".
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(RandomAffineOptions, fill_mode, interpolation, seed, fill_value, data_format)
};

/// The options check and the resampling call the three layers share.
class RandomAffineLayer : public RandomImageLayer {
 public:
  using Options = RandomAffineOptions;  ///< The options struct the constructor takes.
  const RandomAffineOptions& options() const { return o_; }  ///< The options this layer was created with.

 protected:
  /// `cls` names the layer in errors; checks the options.
  RandomAffineLayer(const std::string& cls, RandomAffineOptions options);
  /// Keras's [a0, a1, a2, b0, b1, b2, c0, c1] for each image of (B, H, W, C), from this call's draws.
  virtual std::vector<std::array<double, 8>> transforms(int64_t batch, int64_t height, int64_t width) = 0;
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;
  RandomAffineOptions o_;  ///< The layer's options.
};

/// Rotates each image by a random angle about its centre in training (Keras's
/// `RandomRotation`): angle uniform in [lower, upper)·360 degrees, factor f giving
/// [-f, f); the identity at inference. Output shape = input shape. Users create it through
/// the handle `kiln::layers::RandomRotation(factor, {...})`.
class RandomRotationImpl : public RandomAffineLayer {
 public:
  /// `factor`: f (the range [-f, f)) or (lower, upper), in fractions of a full turn.
  explicit RandomRotationImpl(Factor factor, RandomAffineOptions options = {});
  std::string class_name() const override { return "RandomRotation"; }
  Config get_config() const override;
  KILN_ARGS(RandomRotationImpl, factor_)

 protected:
  std::vector<std::array<double, 8>> transforms(int64_t batch, int64_t height, int64_t width) override;

 private:
  Factor factor_;  // (lower, upper), as Keras keeps it
};

/// Zooms each image at random in training (Keras's `RandomZoom`): the sampled input window
/// is scaled by 1 + a draw from the factor's range (> 1 zooms out), the width with the same
/// draw unless width_factor is given; the identity at inference. Output shape = input shape.
/// Users create it through the handle `kiln::layers::RandomZoom(height_factor, width_factor, {...})`.
class RandomZoomImpl : public RandomAffineLayer {
 public:
  /// `height_factor`: f (the range [-f, f)) or (lower, upper); `width_factor` likewise,
  /// none: the height's draw.
  explicit RandomZoomImpl(Factor height_factor, std::optional<Factor> width_factor = std::nullopt,
                          RandomAffineOptions options = {});
  std::string class_name() const override { return "RandomZoom"; }
  Config get_config() const override;
  KILN_ARGS(RandomZoomImpl, height_factor_, width_factor_)

 protected:
  std::vector<std::array<double, 8>> transforms(int64_t batch, int64_t height, int64_t width) override;

 private:
  Factor height_factor_;
  std::optional<Factor> width_factor_;
  std::pair<double, double> height_range_, width_range_;
};

/// Shifts each image at random in training (Keras's `RandomTranslation`): uniform in
/// [-f, f)·H rows and [-g, g)·W columns for factors f and g (or their (lower, upper));
/// the identity at inference. Output shape = input shape. Users create it through the
/// handle `kiln::layers::RandomTranslation(height_factor, width_factor, {...})`.
class RandomTranslationImpl : public RandomAffineLayer {
 public:
  /// `height_factor` and `width_factor`: f (the range [-f, f)) or (lower, upper), as fractions.
  RandomTranslationImpl(Factor height_factor, Factor width_factor, RandomAffineOptions options = {});
  std::string class_name() const override { return "RandomTranslation"; }
  Config get_config() const override;
  KILN_ARGS(RandomTranslationImpl, height_factor_, width_factor_)

 protected:
  std::vector<std::array<double, 8>> transforms(int64_t batch, int64_t height, int64_t width) override;

 private:
  Factor height_factor_, width_factor_;
  std::pair<double, double> height_range_, width_range_;
};

/// Shears each image at random in training (Keras's `RandomShear`): output (x, y) samples
/// the input at (x + sx·y, y + sy·x), sx and sy uniform in the x and y factors' ranges and
/// negated together with probability 1/2; the identity at inference. Output shape = input
/// shape. Users create it through the handle `kiln::layers::RandomShear(x_factor, y_factor, {...})`.
class RandomShearImpl : public RandomAffineLayer {
 public:
  /// `x_factor` and `y_factor`: f in [0, 1] (the range [-f, f)) or (lower, upper), each value
  /// in [-1, 1] (Keras takes [0, 1] there, so that it cannot read back its own configs).
  explicit RandomShearImpl(Factor x_factor = 0.0, Factor y_factor = 0.0, RandomAffineOptions options = {});
  std::string class_name() const override { return "RandomShear"; }
  Config get_config() const override;
  KILN_ARGS(RandomShearImpl, x_factor_, y_factor_)

 protected:
  std::vector<std::array<double, 8>> transforms(int64_t batch, int64_t height, int64_t width) override;

 private:
  Factor x_factor_, y_factor_;  // (lower, upper), as Keras keeps them
};

KILN_LAYER_HANDLE(RandomRotation);
KILN_LAYER_HANDLE(RandomZoom);
KILN_LAYER_HANDLE(RandomTranslation);
KILN_LAYER_HANDLE(RandomShear);

}  // namespace kiln::layers

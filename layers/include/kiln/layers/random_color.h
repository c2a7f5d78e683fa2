#pragma once
// Colour augmentations: in training, one random adjustment per image,
// clipped to value_range; the identity at inference.
//   L::RandomContrast(0.5)     y = (x - mean) · f + mean, mean per image and channel over
//                              H and W, f uniform in [1 - lower, 1 + upper) where factor
//                              f0 gives (lower, upper) = (0, f0) (Keras 3.15's rule) and a
//                              pair is taken as is; factor values lie in [0, 1]
//   L::RandomBrightness(0.2)   y = x + d · (value_range[1] - value_range[0]), d uniform in
//                              [-0.2, 0.2) (a pair: [lower, upper)); factor values in [-1, 1]
//   L::RandomHue(0.2)          shifts the hue of each image by ±f/2 (f uniform in
//                              [lower, upper), the sign a coin flip), through HSV
//   L::RandomSaturation(0.5)   scales the HSV saturation by f / (1 - f + 1e-7), f uniform
//                              in [lower, upper); factor values in [-1, 1]
//   L::RandomSharpness(0.5)    blends each image with its 3x3 smoothing (weights 1/13,
//                              centre 5/13): y = x + (1 - 2f)(smooth - x)
// value_range (default (0, 255)) bounds the outputs. Images (batch, H, W, C) or one
// (H, W, C); each takes data_format. Differentiable with respect to the images.
// Formulas as in Keras 3.15 (random_hue.py, random_saturation.py, random_sharpness.py,
// the JAX backend's rgb_to_hsv and hsv_to_rgb).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/layers/random_image_layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of the colour augmentation layers (Keras's arguments after factor).
struct RandomColorOptions {
  std::vector<double> value_range = {0, 255};  ///< The (low, high) range of pixel values; outputs are clipped to it.
  std::optional<uint64_t> seed;  ///< Seed of the draws; none: the global generator.
  std::string data_format = "channels_last";  ///< "channels_last" (batch, H, W, C) or "channels_first".
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(RandomColorOptions, value_range, seed, data_format)
};

/// Random contrast in training (Keras's `RandomContrast`): y = (x - mean) · f + mean, the
/// mean per image and channel, f uniform in [1 - lower, 1 + upper), clipped to value_range;
/// the identity at inference. Output shape = input shape. Users create it through the
/// handle `kiln::layers::RandomContrast(factor, {...})`.
class RandomContrastImpl : public RandomImageLayer {
 public:
  using Options = RandomColorOptions;  ///< The options struct the constructor takes.
  /// `factor` f0 gives (lower, upper) = (0, f0) (Keras 3.15's rule); a pair is taken as is.
  explicit RandomContrastImpl(Factor factor, RandomColorOptions options = {});
  std::string class_name() const override { return "RandomContrast"; }
  Config get_config() const override;
  KILN_ARGS(RandomContrastImpl, factor_)
  const RandomColorOptions& options() const { return o_; }  ///< The options this layer was created with.

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  Factor factor_;  // (lower, upper)
  RandomColorOptions o_;
};

/// Random brightness in training (Keras's `RandomBrightness`): y = x + d · (value_range[1]
/// - value_range[0]), d uniform in [-f, f) (a pair: [lower, upper)), clipped to value_range;
/// the identity at inference. Output shape = input shape. Users create it through the
/// handle `kiln::layers::RandomBrightness(factor, {...})`.
class RandomBrightnessImpl : public RandomImageLayer {
 public:
  using Options = RandomColorOptions;  ///< The options struct the constructor takes.
  /// `factor` values lie in [-1, 1].
  explicit RandomBrightnessImpl(Factor factor, RandomColorOptions options = {});
  std::string class_name() const override { return "RandomBrightness"; }
  Config get_config() const override;
  KILN_ARGS(RandomBrightnessImpl, factor_)
  const RandomColorOptions& options() const { return o_; }  ///< The options this layer was created with.

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  Factor factor_;  // (lower, upper)
  RandomColorOptions o_;
};

// RandomHue, RandomSaturation and RandomSharpness: one class each over the same options.
// The comment before each use documents Name##Impl; the API reference expands this
// macro (docs/Doxyfile, EXPAND_AS_DEFINED), so the comments inside it document the
// members of every class.
#define KILN_RANDOM_COLOR_LAYER(Name)                                           \
  class Name##Impl : public RandomImageLayer {                                  \
   public:                                                                      \
    using Options = RandomColorOptions; /**< The options struct it takes. */    \
    /** Takes `factor`, a number or a (lower, upper) pair in the range the     \
        class gives; throws ValueError outside it. */                           \
    explicit Name##Impl(Factor factor, RandomColorOptions options = {});        \
    std::string class_name() const override { return #Name; }                  \
    Config get_config() const override;                                        \
    KILN_ARGS(Name##Impl, factor_)                                              \
    /** The options this layer was created with. */                             \
    const RandomColorOptions& options() const { return o_; }                    \
                                                                                \
   protected:                                                                   \
    Tensor call(const Tensor& x, bool training) override;                       \
    using Layer::call;                                                          \
                                                                                \
   private:                                                                     \
    Factor factor_; /* (lower, upper) */                                        \
    RandomColorOptions o_;                                                      \
  };

/// Random hue shift in training (Keras's `RandomHue`): each RGB image's hue moves by ±f/2
/// (f uniform in [lower, upper), the sign a coin flip), clipped to value_range; the identity
/// at inference. Factor values lie in [0, 1]; a number f0 gives (0, f0). Users create it
/// through the handle `kiln::layers::RandomHue(factor, {...})`.
KILN_RANDOM_COLOR_LAYER(RandomHue)
/// Random saturation in training (Keras's `RandomSaturation`): each RGB image's HSV
/// saturation is scaled by f / (1 - f + 1e-7), f uniform in [lower, upper), and clipped to
/// value_range; the identity at inference. Factor values lie in [-1, 1]. Users create it
/// through the handle `kiln::layers::RandomSaturation(factor, {...})`.
KILN_RANDOM_COLOR_LAYER(RandomSaturation)
/// Random sharpness in training (Keras's `RandomSharpness`): y = x + (1 - 2f)(smooth - x),
/// smooth the image's 3x3 smoothing (weights 1/13, centre 5/13), f uniform in [lower, upper),
/// clipped to value_range; the identity at inference. Factor values lie in [0, 1]; a number
/// f0 gives (0, f0). Users create it through the handle `kiln::layers::RandomSharpness(factor, {...})`.
KILN_RANDOM_COLOR_LAYER(RandomSharpness)
#undef KILN_RANDOM_COLOR_LAYER

/// The handle users create and call RandomContrastImpl through.
KILN_LAYER_HANDLE(RandomContrast);
/// The handle users create and call RandomBrightnessImpl through.
KILN_LAYER_HANDLE(RandomBrightness);
/// The handle users create and call RandomHueImpl through.
KILN_LAYER_HANDLE(RandomHue);
/// The handle users create and call RandomSaturationImpl through.
KILN_LAYER_HANDLE(RandomSaturation);
/// The handle users create and call RandomSharpnessImpl through.
KILN_LAYER_HANDLE(RandomSharpness);

}  // namespace kiln::layers

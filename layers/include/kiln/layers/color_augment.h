#pragma once
// Random colour augmentations of Keras 3.15 (solarization.py, random_invert.py,
// random_posterization.py, random_grayscale.py, random_color_degeneration.py): in
// training, one draw per image; the identity at inference.
//   L::Solarization({.threshold_factor = 0.5})   y = x + a, then 255 - y where y >= t, on
//                                                the (0, 255) scale; a and t drawn per image
//   L::RandomInvert()                            y = value_range[1] - x, for each image with
//                                                probability p (p drawn in [lower, upper))
//   L::RandomPosterization(4)                    keeps the top k bits of each 8-bit value
//   L::RandomGrayscale(0.5)                      the image's luma on every channel, for each
//                                                image with probability `factor`
//   L::RandomColorDegeneration(0.5)              y = x + f (gray - x), clipped to value_range
// Images (batch, H, W, C) or one (H, W, C); each takes data_format.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/layers/random_color.h"
#include "kiln/layers/random_image_layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of Solarization (Keras's `Solarization` arguments).
struct SolarizationOptions {
  /// Added to each pixel before the threshold, times 255: a number f gives the range [0, f];
  /// values in [0, 1].
  Factor addition_factor = 0.0;
  /// Pixels at or above the threshold are inverted: a number f gives [0, f]; values in [0, 1].
  Factor threshold_factor = 0.0;
  std::vector<double> value_range = {0, 255};  ///< The (low, high) range of pixel values, in either order.
  std::optional<uint64_t> seed;  ///< Seed of the draws; none: the global generator.
  std::string data_format = "channels_last";  ///< "channels_last" (batch, H, W, C) or "channels_first".
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(SolarizationOptions, addition_factor, threshold_factor, value_range, seed, data_format)
};

/// Solarization in training (Keras's `Solarization`): on the (0, 255) scale, y = clip(x + a,
/// 0, 255), then 255 - y where y >= t, mapped back to value_range; a uniform in [a0, 255 a1)
/// and t in [t0, 255 t1) per image (Keras scales only the upper bounds). The identity at
/// inference. Users create it through the handle `kiln::layers::Solarization({...})`.
class SolarizationImpl : public RandomImageLayer {
 public:
  using Options = SolarizationOptions;  ///< The options struct the constructor takes.
  /// Throws ValueError for factors outside [0, 1] or a value_range that is not two numbers.
  explicit SolarizationImpl(SolarizationOptions options = {});
  std::string class_name() const override { return "Solarization"; }
  Config get_config() const override;
  KILN_ARGS(SolarizationImpl)
  const SolarizationOptions& options() const { return o_; }  ///< The options this layer was created with.

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  SolarizationOptions o_;  // factors as (lower, upper) pairs
};

/// Random inversion in training (Keras's `RandomInvert`): y = value_range[1] - x for each
/// image whose draw u in [0, 1) is below its probability p, p uniform in [lower, upper); the
/// identity at inference. `factor` in [0, 1]; a number f gives (0, f). value_range is kept
/// as given. Users create it through the handle `kiln::layers::RandomInvert(factor, {...})`.
class RandomInvertImpl : public RandomImageLayer {
 public:
  using Options = RandomColorOptions;  ///< The options struct the constructor takes.
  /// Throws ValueError for a factor outside [0, 1].
  explicit RandomInvertImpl(Factor factor = 1.0, RandomColorOptions options = {});
  std::string class_name() const override { return "RandomInvert"; }
  Config get_config() const override;
  KILN_ARGS(RandomInvertImpl, factor_)
  const RandomColorOptions& options() const { return o_; }  ///< The options this layer was created with.

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  Factor factor_;  // (lower, upper)
  RandomColorOptions o_;
};

/// Random posterization in training (Keras's `RandomPosterization`): on the (0, 255) scale,
/// each value's integer part (saturated to 0..255) keeps its top k bits, k an integer drawn
/// per image in [lower, upper) (lower itself when they are equal), mapped back to
/// value_range; the identity at inference. `factor` in [1, 8]; a number f gives (1, f).
/// Users create it through the handle `kiln::layers::RandomPosterization(factor, {...})`.
class RandomPosterizationImpl : public RandomImageLayer {
 public:
  using Options = RandomColorOptions;  ///< The options struct the constructor takes.
  /// Throws ValueError for a factor outside [1, 8] or a value_range that is not two numbers.
  explicit RandomPosterizationImpl(Factor factor, RandomColorOptions options = {});
  std::string class_name() const override { return "RandomPosterization"; }
  Config get_config() const override;
  KILN_ARGS(RandomPosterizationImpl, factor_)
  const RandomColorOptions& options() const { return o_; }  ///< The options this layer was created with.

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  Factor factor_;  // (lower, upper)
  RandomColorOptions o_;
};

/// Options of RandomGrayscale (Keras's `RandomGrayscale` arguments after factor).
struct RandomGrayscaleOptions {
  std::string data_format = "channels_last";  ///< "channels_last" (batch, H, W, C) or "channels_first".
  /// Seed of the draws; none: the global generator. Keras does not write it to the config.
  std::optional<uint64_t> seed;
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(RandomGrayscaleOptions, data_format)
};

/// Random grayscale in training (Keras's `RandomGrayscale`): each image, with probability
/// `factor`, becomes its luma 0.2989 R + 0.5870 G + 0.1140 B on every channel (a
/// one-channel image stays as it is); the identity at inference. Users create it through
/// the handle `kiln::layers::RandomGrayscale(factor, {...})`.
class RandomGrayscaleImpl : public RandomImageLayer {
 public:
  using Options = RandomGrayscaleOptions;  ///< The options struct the constructor takes.
  /// Throws ValueError for a factor outside [0, 1].
  explicit RandomGrayscaleImpl(double factor = 0.5, RandomGrayscaleOptions options = {});
  std::string class_name() const override { return "RandomGrayscale"; }
  Config get_config() const override;
  KILN_ARGS(RandomGrayscaleImpl, factor_)
  const RandomGrayscaleOptions& options() const { return o_; }  ///< The options this layer was created with.

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  double factor_;
  RandomGrayscaleOptions o_;
};

/// Random colour degeneration in training (Keras's `RandomColorDegeneration`): y = x +
/// f (gray - x), gray the image's luma, f uniform in [lower, upper) per image, clipped to
/// value_range; the identity at inference. `factor` in [-1, 1]; a number f gives (-f, f) (as
/// Keras's code does; its documentation says (0, f)). Users create it through the handle
/// `kiln::layers::RandomColorDegeneration(factor, {...})`.
class RandomColorDegenerationImpl : public RandomImageLayer {
 public:
  using Options = RandomColorOptions;  ///< The options struct the constructor takes.
  /// Throws ValueError for a factor outside [-1, 1] or a value_range that is not two numbers.
  explicit RandomColorDegenerationImpl(Factor factor, RandomColorOptions options = {});
  std::string class_name() const override { return "RandomColorDegeneration"; }
  Config get_config() const override;
  KILN_ARGS(RandomColorDegenerationImpl, factor_)
  const RandomColorOptions& options() const { return o_; }  ///< The options this layer was created with.
  /// Throws ValueError unless the images are of rank 3 or 4 with 3 channels.
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  Factor factor_;  // (lower, upper)
  RandomColorOptions o_;
};

/// The handle users create and call SolarizationImpl through.
KILN_LAYER_HANDLE(Solarization);
/// The handle users create and call RandomInvertImpl through.
KILN_LAYER_HANDLE(RandomInvert);
/// The handle users create and call RandomPosterizationImpl through.
KILN_LAYER_HANDLE(RandomPosterization);
/// The handle users create and call RandomGrayscaleImpl through.
KILN_LAYER_HANDLE(RandomGrayscale);
/// The handle users create and call RandomColorDegenerationImpl through.
KILN_LAYER_HANDLE(RandomColorDegeneration);

}  // namespace kiln::layers

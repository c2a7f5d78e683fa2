#pragma once
// RandomPerspective and RandomElasticTransform (Keras 3.15's random_perspective.py and
// random_elastic_transform.py): in training, each image is warped with probability p (p
// uniform in the factor's [lower, upper), default [0, 1)); the identity at inference.
//   L::RandomPerspective()          corners (0, 0), (W-1, 0), (0, H-1), (W-1, H-1) move to
//                                   c·(1 + d), d uniform in [-scale/2, scale/2) per coordinate
//                                   (so (0, 0) stays), the image follows the homography;
//                                   outside it, fill_value
//   L::RandomElasticTransform()     displaces each pixel by alpha·d along both axes, d
//                                   normal noise · sigma smoothed by a Gaussian of sigma,
//                                   alpha = 0.1·s·max(H, W), sigma = 0.05·s·min(H, W), s
//                                   uniform in scale's range (one draw per batch); outputs
//                                   clipped to value_range
// interpolation "bilinear" (the default) or "nearest". Images (batch, H, W, C) or one
// (H, W, C) (channels_first: C first). Differentiable with respect to the images.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/layers/random_image_layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of RandomPerspective (Keras's arguments after factor).
struct RandomPerspectiveOptions {
  double scale = 1.0;  ///< The corners' relative displacement, in [0, 1].
  std::string interpolation = "bilinear";  ///< "bilinear" or "nearest".
  double fill_value = 0.0;  ///< The value outside the input image.
  std::optional<uint64_t> seed;  ///< Seed of the draws; none: the global generator.
  std::string data_format = "channels_last";  ///< "channels_last" (batch, H, W, C) or "channels_first".
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(RandomPerspectiveOptions, scale, interpolation, fill_value, seed, data_format)
};

/// Warps each image through a random homography in training, with a per-image
/// probability drawn from the factor (Keras's `RandomPerspective`); the identity at
/// inference. Output shape = input shape. Users create it through the handle
/// `kiln::layers::RandomPerspective(factor, {...})`.
class RandomPerspectiveImpl : public RandomImageLayer {
 public:
  using Options = RandomPerspectiveOptions;  ///< The options struct the constructor takes.
  /// `factor`: the probability range, f (the range [0, f)) or (lower, upper), within [0, 1].
  explicit RandomPerspectiveImpl(Factor factor = 1.0, RandomPerspectiveOptions options = {});
  std::string class_name() const override { return "RandomPerspective"; }
  Config get_config() const override;
  KILN_ARGS(RandomPerspectiveImpl, factor_)
  const RandomPerspectiveOptions& options() const { return o_; }  ///< The options this layer was created with.

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  Factor factor_;  // (lower, upper)
  RandomPerspectiveOptions o_;
};

/// Options of RandomElasticTransform (Keras's arguments after factor).
struct RandomElasticTransformOptions {
  Factor scale = 1.0;  ///< The distortion's range: s (the range [0, s)) or (lower, upper), within [0, 1].
  std::string interpolation = "bilinear";  ///< "bilinear" or "nearest".
  /// Outside the image: "reflect" (d c b a | a b c d), "mirror" (d c b | a b c d), "wrap",
  /// "nearest" or "constant" (fill_value).
  std::string fill_mode = "reflect";
  double fill_value = 0.0;  ///< The value of "constant" fill_mode.
  std::vector<double> value_range = {0, 255};  ///< The (low, high) range of pixel values; outputs are clipped to it.
  std::optional<uint64_t> seed;  ///< Seed of the draws; none: the global generator.
  std::string data_format = "channels_last";  ///< "channels_last" (batch, H, W, C) or "channels_first".
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(RandomElasticTransformOptions, scale, interpolation, fill_mode, fill_value, value_range, seed, data_format)
};

/// Displaces the pixels of each image by smoothed random noise in training, with a
/// per-image probability drawn from the factor (Keras's `RandomElasticTransform`); the
/// identity at inference. As in Keras, one noise field moves both axes alike. Output
/// shape = input shape. Users create it through the handle
/// `kiln::layers::RandomElasticTransform(factor, {...})`.
class RandomElasticTransformImpl : public RandomImageLayer {
 public:
  using Options = RandomElasticTransformOptions;  ///< The options struct the constructor takes.
  /// `factor`: the probability range, f (the range [0, f)) or (lower, upper), within [0, 1].
  explicit RandomElasticTransformImpl(Factor factor = 1.0, RandomElasticTransformOptions options = {});
  std::string class_name() const override { return "RandomElasticTransform"; }
  Config get_config() const override;
  KILN_ARGS(RandomElasticTransformImpl, factor_)
  const RandomElasticTransformOptions& options() const { return o_; }  ///< The options this layer was created with.

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  Tensor warp(const Tensor& x);  // every image of (B, H, W, C) displaced, before the choice and the clip
  Factor factor_;  // (lower, upper)
  RandomElasticTransformOptions o_;
};

/// The handle users create and call RandomPerspectiveImpl through.
KILN_LAYER_HANDLE(RandomPerspective);
/// The handle users create and call RandomElasticTransformImpl through.
KILN_LAYER_HANDLE(RandomElasticTransform);

}  // namespace kiln::layers

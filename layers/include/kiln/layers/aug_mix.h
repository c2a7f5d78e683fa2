#pragma once
// AugMix (Keras 3.15's aug_mix.py): in training, num_chains chains of up to chain_depth
// augmentation ops each, mixed with Dirichlet weights and blended with the input by a
// Beta draw; the identity at inference.
//   L::AugMix({.value_range = {0, 1}, .num_chains = 2, .alpha = 0.5})
// y = clip(m x + (1 - m) Σ_i w_i chain_i(x), value_range[0], value_range[1]), with
// (w_1..w_k) ~ Dirichlet(alpha) and m ~ Beta(alpha, alpha), drawn once per call. Each of a
// chain's chain_depth steps picks uniformly one of the ops or none (so a chain applies 0 to
// chain_depth ops); the choices and the weights hold for the whole batch, while each op
// draws its own values per image. The ops, built from the factor's range (lower, upper)
// as in rand_augment.h: RandomShear, RandomTranslation, RandomRotation,
// RandomPosterization, Solarization, AutoContrast, Equalization and, with all_ops,
// RandomBrightness, RandomColorDegeneration, RandomContrast and RandomSharpness. Images
// (batch, H, W, C) or one (H, W, C), in data_format.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/layers/random_image_layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of AugMix (Keras's `AugMix` arguments).
struct AugMixOptions {
  std::vector<double> value_range = {0, 255};  ///< The (low, high) range of pixel values; outputs are clipped to it.
  int64_t num_chains = 3;  ///< Chains mixed.
  int64_t chain_depth = 3;  ///< Steps per chain; each applies one op or none.
  /// Strength in [0, 1]: a number f gives the range (0, f); written back as the pair.
  Factor factor = 0.3;
  double alpha = 1.0;  ///< Concentration of the Dirichlet and Beta draws.
  bool all_ops = true;  ///< Whether the four colour ops (brightness, colour degeneration, contrast, sharpness) join.
  std::string interpolation = "bilinear";  ///< Of the geometric ops: "bilinear" or "nearest".
  std::optional<uint64_t> seed;  ///< Seed of the draws; none: the global generator.
  std::string data_format = "channels_last";  ///< "channels_last" (batch, H, W, C) or "channels_first".
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(AugMixOptions, value_range, num_chains, chain_depth, factor, alpha, all_ops, interpolation, seed,
              data_format)
};

/// One call's draws (Keras's AugMix.get_random_transformation): the Dirichlet weights of
/// the chains, the Beta blend of the input, and each chain's op names in order.
struct AugMixTransformation {
  std::vector<double> chain_mixing_weights;  ///< One per chain, summing to 1.
  double weight_sample = 0.0;  ///< The input's share m of the output, in [0, 1].
  std::vector<std::vector<std::string>> chain_transforms;  ///< Each chain's ops (0 to chain_depth names).
};

/// AugMix in training (Keras's `AugMix`); the identity at inference. Users create it
/// through the handle `kiln::layers::AugMix({...})`.
class AugMixImpl : public RandomImageLayer {
 public:
  using Options = AugMixOptions;  ///< The options struct the constructor takes.
  /// Throws ValueError for a factor outside [0, 1], num_chains < 1, chain_depth < 0,
  /// alpha <= 0, or what an op's layer refuses (value_range, interpolation).
  explicit AugMixImpl(AugMixOptions options = {});
  std::string class_name() const override { return "AugMix"; }
  Config get_config() const override;
  KILN_ARGS(AugMixImpl)
  const AugMixOptions& options() const { return o_; }  ///< The options this layer was created with.
  /// Keras's op names (its attributes) this layer chooses among, as its list orders them.
  const std::vector<std::string>& op_names() const { return names_; }
  /// Draws one call's transformation (as Keras's get_random_transformation in training).
  AugMixTransformation get_random_transformation();
  /// Keras's transform_images in training: images mixed through `t`'s chains (each op
  /// drawing its own values), blended and clipped. Throws ValueError for a name that is not
  /// one of op_names() or a weight count other than num_chains.
  Tensor transform_images(const Tensor& images, const AugMixTransformation& t);

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  AugMixOptions o_;
  std::vector<std::string> names_;
  std::vector<LayerPtr> ops_;  // in names_ order
};

/// The handle users create and call AugMixImpl through.
KILN_LAYER_HANDLE(AugMix);

}  // namespace kiln::layers

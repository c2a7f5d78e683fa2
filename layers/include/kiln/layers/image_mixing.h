#pragma once
// MixUp and CutMix (Keras 3.15's mix_up.py and cut_mix.py): in training, each image is
// mixed with the image a random permutation of the batch puts in its place; the identity
// at inference. Called on images alone they mix the images; call_with_labels also mixes
// the labels with the same draws (Keras's {"images", "labels"} call).
//   L::MixUp(0.2)    y_i = λ_i·x_i + (1 - λ_i)·x_perm(i), λ_i ~ Beta(0.2, 0.2); labels alike
//   L::CutMix()      a box of each image, sides sqrt(1 - λ_i)·(W, H), λ_i ~ Beta(a, a), a
//                    uniform in the factor's [lower, upper) plus 1e-6 (one per batch), is
//                    replaced by the same box of x_perm(i); the labels are mixed with the
//                    weight 1 - box area / image area. One image (rank 3) passes unchanged.
// Images (batch, H, W, C) or one (H, W, C) (channels_first: C first); labels (batch, ...).
// Differentiable with respect to the images and labels.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/layers/random_image_layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of MixUp and CutMix (Keras's arguments after alpha or factor).
struct ImageMixingOptions {
  std::optional<uint64_t> seed;  ///< Seed of the draws; none: the global generator.
  std::string data_format = "channels_last";  ///< "channels_last" (batch, H, W, C) or "channels_first".
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(ImageMixingOptions, seed, data_format)
};

/// What MixUp and CutMix share: the layout, the labels call and the options.
class ImageMixingLayer : public RandomImageLayer {
 public:
  using Options = ImageMixingOptions;  ///< The options struct the constructor takes.
  const ImageMixingOptions& options() const { return o_; }  ///< The options this layer was created with.
  /// Keras's call on {"images": images, "labels": labels}: both mixed with the same draws
  /// in training (`training` none: true, as Keras's default), returned unchanged otherwise.
  std::pair<Tensor, Tensor> call_with_labels(const Tensor& images, const Tensor& labels,
                                             std::optional<bool> training = std::nullopt);

 protected:
  /// `cls`: the Keras class name ("MixUp", "CutMix"), for error messages.
  ImageMixingLayer(const std::string& cls, ImageMixingOptions options);
  /// This call's draws for (B, H, W, C) images: the per-image mix of the images (B, H, W, C)
  /// and the per-image label weights.
  struct Mix {
    std::vector<int64_t> permutation;  ///< Image i is mixed with image permutation[i].
    Tensor images;  ///< The mixed images.
    std::vector<double> label_weight;  ///< Labels: w·labels + (1 - w)·labels[permutation].
  };
  /// Draws this call's mix of `images` (channels last).
  virtual Mix mix(const Tensor& images) = 0;
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;
  ImageMixingOptions o_;  ///< The layer's options.
};

/// Mixes each image with another of its batch in training, λ·x_i + (1 - λ)·x_perm(i) with
/// λ ~ Beta(alpha, alpha) per image (Keras's `MixUp`); the identity at inference. Output
/// shape = input shape. Users create it through the handle `kiln::layers::MixUp(alpha, {...})`.
class MixUpImpl : public ImageMixingLayer {
 public:
  /// `alpha` > 0: the Beta distribution's concentration (small: little mixing).
  explicit MixUpImpl(double alpha = 0.2, ImageMixingOptions options = {});
  std::string class_name() const override { return "MixUp"; }
  Config get_config() const override;
  KILN_ARGS(MixUpImpl, alpha_)

 protected:
  /// λ ~ Beta(alpha, alpha) per image, the partner a random permutation of the batch.
  Mix mix(const Tensor& images) override;

 private:
  double alpha_;
};

/// Pastes a random box of another image of the batch into each image in training
/// (Keras's `CutMix`); the identity at inference and for one image. Output shape = input
/// shape. Users create it through the handle `kiln::layers::CutMix(factor, {...})`.
class CutMixImpl : public ImageMixingLayer {
 public:
  /// `factor`: the range of the Beta concentration, f (the range [0, f)) or (lower, upper), within [0, 1].
  explicit CutMixImpl(Factor factor = 1.0, ImageMixingOptions options = {});
  std::string class_name() const override { return "CutMix"; }
  Config get_config() const override;
  KILN_ARGS(CutMixImpl, factor_)

 protected:
  /// A box of area (1 - λ) of the image per image, λ ~ Beta(f, f) with f drawn from the factor range.
  Mix mix(const Tensor& images) override;

 private:
  Factor factor_;  // (lower, upper)
};

/// The handle users create and call MixUpImpl through.
KILN_LAYER_HANDLE(MixUp);
/// The handle users create and call CutMixImpl through.
KILN_LAYER_HANDLE(CutMix);

}  // namespace kiln::layers

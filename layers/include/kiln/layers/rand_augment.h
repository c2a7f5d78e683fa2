#pragma once
// RandAugment (Keras 3.15's rand_augment.py): in training, num_ops operations applied one
// after another to the whole batch, each chosen uniformly among eleven augmentation
// layers built from one factor; the identity at inference.
//   L::RandAugment({.value_range = {0, 1}, .num_ops = 3, .factor = 0.7})
// The ops, with (lower, upper) the factor's range: RandomShear (x and y factors),
// RandomTranslation (height and width), RandomRotation, RandomBrightness,
// RandomColorDegeneration, RandomContrast, RandomSharpness (each with that range),
// RandomPosterization (factor max(1, int(8 upper))), Solarization (addition and threshold
// factors), AutoContrast and Equalization; each draws its own values per image as that
// layer does. Images (batch, H, W, C) or one (H, W, C), in data_format.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/layers/random_image_layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of RandAugment (Keras's `RandAugment` arguments).
struct RandAugmentOptions {
  std::vector<double> value_range = {0, 255};  ///< The (low, high) range of pixel values, as the ops take it.
  int64_t num_ops = 2;  ///< Operations applied one after another.
  /// Strength in [0, 1]: a number f gives the range (0, f); written back as the pair.
  Factor factor = 0.5;
  std::string interpolation = "bilinear";  ///< Of the geometric ops: "bilinear" or "nearest".
  std::optional<uint64_t> seed;  ///< Seed of the draws; none: the global generator.
  std::string data_format = "channels_last";  ///< "channels_last" (batch, H, W, C) or "channels_first".
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(RandAugmentOptions, value_range, num_ops, factor, interpolation, seed, data_format)
};

/// RandAugment in training (Keras's `RandAugment`): num_ops ops, each chosen uniformly
/// among the eleven (one choice per op for the whole batch); the identity at inference.
/// Users create it through the handle `kiln::layers::RandAugment({...})`.
class RandAugmentImpl : public RandomImageLayer {
 public:
  using Options = RandAugmentOptions;  ///< The options struct the constructor takes.
  /// Throws ValueError for a factor outside [0, 1], a negative num_ops, or what an op's
  /// layer refuses (value_range, interpolation).
  explicit RandAugmentImpl(RandAugmentOptions options = {});
  std::string class_name() const override { return "RandAugment"; }
  Config get_config() const override;
  KILN_ARGS(RandAugmentImpl)
  const RandAugmentOptions& options() const { return o_; }  ///< The options this layer was created with.
  /// Keras's op names (its attributes), in the order the choices index them.
  static const std::vector<std::string>& op_names();
  /// Draws one call's op choices (Keras's layer_idxes): num_ops indices into op_names().
  std::vector<int64_t> get_random_transformation();
  /// Keras's transform_images in training: the ops `layer_idxes` applied in order, each
  /// drawing its own values. Throws ValueError for an index outside op_names().
  Tensor transform_images(const Tensor& images, const std::vector<int64_t>& layer_idxes);

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  RandAugmentOptions o_;
  std::vector<LayerPtr> ops_;  // in op_names() order
};

/// The handle users create and call RandAugmentImpl through.
KILN_LAYER_HANDLE(RandAugment);

}  // namespace kiln::layers

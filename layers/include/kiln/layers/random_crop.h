#pragma once
// RandomCrop: crops images to (height, width).
//   L::RandomCrop(24, 24)   (batch, 32, 32, 3) -> (batch, 24, 24, 3)
// Training, when the image is larger on both axes: one random window of
// (height, width) for the whole batch (start rows uniform in [0, H - height]).
// Otherwise, and at inference, Keras's fixed window: the window of the target aspect
// ratio, ch = min(H, W·height/width) by cw = min(W, H·width/height) (integer parts, at
// least 1), centred, starts at row (H - ch) / 2 and column (W - cw) / 2; from there
// `height` rows and `width` columns are taken (fewer where the image ends), then resized
// (bilinear) to (height, width) if the image was smaller. Keras 3.15 skips the crop at
// inference (keras-team/keras#21868), against its own output shape and documentation;
// Kiln applies this window there, as the proposed fix does.
// Images (batch, H, W, C) or one (H, W, C) (channels_first: C first). Differentiable
// with respect to the images.
#include <cstdint>
#include <optional>
#include <string>

#include "kiln/core/fields.h"
#include "kiln/layers/random_image_layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of RandomCrop (Keras's `RandomCrop` constructor arguments after height and width).
struct RandomCropOptions {
  std::optional<uint64_t> seed;  ///< Seed of the draws; none: the global generator.
  std::string data_format = "channels_last";  ///< "channels_last" (batch, H, W, C) or "channels_first".
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(RandomCropOptions, seed, data_format)
};

/// Crops images to (height, width) (Keras's `RandomCrop`): (batch, H, W, C) -> (batch,
/// height, width, C). In training, when the image is larger on both axes, one random window
/// for the whole batch; otherwise, and at inference, Keras's fixed centred window of the
/// target aspect ratio, resized (bilinear) if the image was smaller.
/// Users create it through the handle `kiln::layers::RandomCrop(height, width, {...})`.
class RandomCropImpl : public RandomImageLayer {
 public:
  using Options = RandomCropOptions;  ///< The options struct the constructor takes.
  /// The target `height` and `width`.
  RandomCropImpl(int64_t height, int64_t width, RandomCropOptions options = {});
  std::string class_name() const override { return "RandomCrop"; }
  /// Keras passes float inputs through as they are (no cast to the compute dtype).
  bool converts_inputs() const override { return false; }
  Config get_config() const override;
  KILN_ARGS(RandomCropImpl, height_, width_)
  const RandomCropOptions& options() const { return o_; }  ///< The options this layer was created with.
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  int64_t height_, width_;
  RandomCropOptions o_;
};

KILN_LAYER_HANDLE(RandomCrop);

}  // namespace kiln::layers

#pragma once
// RandomFlip: in training, each image is flipped with probability 1/2.
//   L::RandomFlip("horizontal")      left-right (the width axis)
//   L::RandomFlip("vertical")        upside down (the height axis)
//   L::RandomFlip()                  "horizontal_and_vertical": both axes at once for
//                                    a chosen image (one draw per image, as Keras)
// Images (batch, H, W, C) or one (H, W, C) (channels_first: C first); the identity at
// inference. Differentiable with respect to the images.
#include <cstdint>
#include <optional>
#include <string>

#include "kiln/core/fields.h"
#include "kiln/layers/random_image_layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of RandomFlip (Keras's `RandomFlip` constructor arguments after mode).
struct RandomFlipOptions {
  std::optional<uint64_t> seed;  ///< Seed of the draws; none: the global generator.
  std::string data_format = "channels_last";  ///< "channels_last" (batch, H, W, C) or "channels_first".
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(RandomFlipOptions, seed, data_format)
};

/// Flips each image with probability 1/2 in training (Keras's `RandomFlip`): "horizontal"
/// left-right, "vertical" upside down, "horizontal_and_vertical" (the default) both axes
/// for a chosen image. The identity at inference; output shape = input shape.
/// Users create it through the handle `kiln::layers::RandomFlip(mode, {...})`.
class RandomFlipImpl : public RandomImageLayer {
 public:
  using Options = RandomFlipOptions;  ///< The options struct the constructor takes.
  /// `mode`: "horizontal", "vertical" or "horizontal_and_vertical".
  explicit RandomFlipImpl(std::string mode = "horizontal_and_vertical", RandomFlipOptions options = {});
  std::string class_name() const override { return "RandomFlip"; }
  /// Keras passes float inputs through as they are (no cast to the compute dtype).
  bool converts_inputs() const override { return false; }
  Config get_config() const override;
  KILN_ARGS(RandomFlipImpl, mode_)
  const RandomFlipOptions& options() const { return o_; }  ///< The options this layer was created with.

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  std::string mode_;
  RandomFlipOptions o_;
};

KILN_LAYER_HANDLE(RandomFlip);

}  // namespace kiln::layers

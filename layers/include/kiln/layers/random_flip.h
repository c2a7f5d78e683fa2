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

struct RandomFlipOptions {
  std::optional<uint64_t> seed;
  std::string data_format = "channels_last";
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(RandomFlipOptions, seed, data_format)
};

class RandomFlipImpl : public RandomImageLayer {
 public:
  using Options = RandomFlipOptions;
  explicit RandomFlipImpl(std::string mode = "horizontal_and_vertical", RandomFlipOptions options = {});
  std::string class_name() const override { return "RandomFlip"; }
  Config get_config() const override;
  KILN_ARGS(RandomFlipImpl, mode_)
  const RandomFlipOptions& options() const { return o_; }

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  std::string mode_;
  RandomFlipOptions o_;
};

KILN_LAYER_HANDLE(RandomFlip);

}  // namespace kiln::layers

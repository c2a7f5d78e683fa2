#pragma once
// RandomContrast and RandomBrightness: in training, one random adjustment per image,
// clipped to value_range; the identity at inference.
//   L::RandomContrast(0.5)     y = (x - mean) · f + mean, mean per image and channel over
//                              H and W, f uniform in [1 - lower, 1 + upper) where factor
//                              f0 gives (lower, upper) = (0, f0) (Keras 3.15's rule) and a
//                              pair is taken as is; factor values lie in [0, 1]
//   L::RandomBrightness(0.2)   y = x + d · (value_range[1] - value_range[0]), d uniform in
//                              [-0.2, 0.2) (a pair: [lower, upper)); factor values in [-1, 1]
// value_range (default (0, 255)) bounds the outputs. Images (batch, H, W, C) or one
// (H, W, C); RandomContrast takes data_format. Differentiable with respect to the images.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/layers/random_image_layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

struct RandomColorOptions {
  std::vector<double> value_range = {0, 255};
  std::optional<uint64_t> seed;
  std::string data_format = "channels_last";
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(RandomColorOptions, value_range, seed, data_format)
};

class RandomContrastImpl : public RandomImageLayer {
 public:
  using Options = RandomColorOptions;
  explicit RandomContrastImpl(Factor factor, RandomColorOptions options = {});
  std::string class_name() const override { return "RandomContrast"; }
  Config get_config() const override;
  KILN_ARGS(RandomContrastImpl, factor_)
  const RandomColorOptions& options() const { return o_; }

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  Factor factor_;  // (lower, upper)
  RandomColorOptions o_;
};

class RandomBrightnessImpl : public RandomImageLayer {
 public:
  using Options = RandomColorOptions;
  explicit RandomBrightnessImpl(Factor factor, RandomColorOptions options = {});
  std::string class_name() const override { return "RandomBrightness"; }
  Config get_config() const override;
  KILN_ARGS(RandomBrightnessImpl, factor_)
  const RandomColorOptions& options() const { return o_; }

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  Factor factor_;  // (lower, upper)
  RandomColorOptions o_;
};

KILN_LAYER_HANDLE(RandomContrast);
KILN_LAYER_HANDLE(RandomBrightness);

}  // namespace kiln::layers

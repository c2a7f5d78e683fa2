#pragma once
// RandomGaussianBlur (Keras 3.15's random_gaussian_blur.py): in training, each image
// is blurred with probability p (p uniform in the factor's [lower, upper), default
// [0, 1)) by a Gaussian kernel of kernel_size taps, the result clipped to value_range;
// the identity at inference.
//   L::RandomGaussianBlur()                                    3x3 kernel, sigma uniform in [0, 1)
//   L::RandomGaussianBlur({1.0, 1.0}, {.kernel_size = {5, 3}, .sigma = Factor(0.5, 0.5)})
//       always, 5 taps along the width and 3 along the height, sigma 0.5
// One sigma per axis is drawn for the whole batch (Keras's two draws), plus 1e-6; zero
// padding at the edges. Images (batch, H, W, C) or one (H, W, C) (channels_first: C
// first). Differentiable with respect to the images.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/layers/common.h"
#include "kiln/layers/random_image_layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of RandomGaussianBlur (Keras's arguments after factor).
struct RandomGaussianBlurOptions {
  Size2 kernel_size = 3;  ///< Odd tap counts (along the width, along the height); one int: both.
  Factor sigma = 1.0;  ///< The standard deviation's range: s (the range [0, s)) or (lower, upper), within [0, 1].
  std::vector<double> value_range = {0, 255};  ///< The (low, high) range of pixel values; outputs are clipped to it.
  std::string data_format = "channels_last";  ///< "channels_last" (batch, H, W, C) or "channels_first".
  std::optional<uint64_t> seed;  ///< Seed of the draws; none: the global generator.
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(RandomGaussianBlurOptions, kernel_size, sigma, value_range, data_format, seed)
};

/// Blurs each image with a random Gaussian in training, with a per-image probability drawn
/// from the factor (Keras's `RandomGaussianBlur`); the identity at inference. Output shape =
/// input shape. Users create it through the handle `kiln::layers::RandomGaussianBlur(factor, {...})`.
class RandomGaussianBlurImpl : public RandomImageLayer {
 public:
  using Options = RandomGaussianBlurOptions;  ///< The options struct the constructor takes.
  /// `factor`: the probability range, f (the range [0, f)) or (lower, upper), within [0, 1].
  explicit RandomGaussianBlurImpl(Factor factor = 1.0, RandomGaussianBlurOptions options = {});
  std::string class_name() const override { return "RandomGaussianBlur"; }
  Config get_config() const override;
  KILN_ARGS(RandomGaussianBlurImpl, factor_)
  const RandomGaussianBlurOptions& options() const { return o_; }  ///< The options this layer was created with.

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  Factor factor_;  // (lower, upper)
  RandomGaussianBlurOptions o_;
};

/// The handle users create and call RandomGaussianBlurImpl through.
KILN_LAYER_HANDLE(RandomGaussianBlur);

}  // namespace kiln::layers

#pragma once
// Deterministic colour adjustments, as Keras 3.15 computes them (auto_contrast.py,
// equalization.py). No random draws.
//   L::AutoContrast()     stretches each image's values to fill value_range:
//                         y = (x - low) · 255 / (high - low) on the (0, 255) scale, clipped;
//                         low and high are the minimum and maximum over the input's axes 1
//                         and 2 (H and W in channels_last). Active at inference too.
//   L::Equalization()     histogram equalisation of each channel (one histogram of `bins`
//                         bins over the whole batch), in training only.
// value_range (default (0, 255)) is the range of the pixel values. Images (batch, H, W, C)
// or one (H, W, C); each takes data_format.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/layers/random_image_layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of AutoContrast (Keras's `AutoContrast` arguments).
struct AutoContrastOptions {
  std::vector<double> value_range = {0, 255};  ///< The (low, high) range of pixel values, in either order.
  std::string data_format = "channels_last";  ///< "channels_last" (batch, H, W, C) or "channels_first".
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(AutoContrastOptions, value_range, data_format)
};

/// Auto contrast (Keras's `AutoContrast`), in training and at inference: on the (0, 255)
/// scale, y = clip((x - low) · 255 / (high - low), 0, 255), low and high the minimum and
/// maximum of each image over the input's axes 1 and 2, mapped back to value_range; where
/// that is NaN (high == low) the input is kept. Output shape = input shape. Users create it
/// through the handle `kiln::layers::AutoContrast({...})`.
class AutoContrastImpl : public RandomImageLayer {
 public:
  using Options = AutoContrastOptions;  ///< The options struct the constructor takes.
  /// Throws ValueError unless value_range holds two numbers.
  explicit AutoContrastImpl(AutoContrastOptions options = {});
  std::string class_name() const override { return "AutoContrast"; }
  Config get_config() const override;
  KILN_ARGS(AutoContrastImpl)
  const AutoContrastOptions& options() const { return o_; }  ///< The options this layer was created with.

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  AutoContrastOptions o_;
};

/// Options of Equalization (Keras's `Equalization` arguments).
struct EqualizationOptions {
  std::vector<double> value_range = {0, 255};  ///< The (low, high) range of pixel values, in either order.
  int64_t bins = 256;  ///< Histogram bins.
  std::string data_format = "channels_last";  ///< "channels_last" (batch, H, W, C) or "channels_first".
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(EqualizationOptions, value_range, bins, data_format)
};

/// Histogram equalisation in training (Keras's `Equalization`): each channel, scaled to
/// (0, 255), is mapped through round(255 · (cdf - cdf_min) / (n - cdf_min)) of its histogram
/// over the whole batch (`bins` bins), then scaled back to value_range; a channel with at
/// most one occupied bin is kept. The identity at inference (training=false), as in Keras
/// 3.15. Output shape = input shape. Users create it through the handle
/// `kiln::layers::Equalization({...})`.
class EqualizationImpl : public RandomImageLayer {
 public:
  using Options = EqualizationOptions;  ///< The options struct the constructor takes.
  /// Throws ValueError unless value_range holds two numbers and bins is positive.
  explicit EqualizationImpl(EqualizationOptions options = {});
  std::string class_name() const override { return "Equalization"; }
  Config get_config() const override;
  KILN_ARGS(EqualizationImpl)
  const EqualizationOptions& options() const { return o_; }  ///< The options this layer was created with.

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  Tensor equalize_channel(const Tensor& channel) const;
  EqualizationOptions o_;
};

/// The handle users create and call AutoContrastImpl through.
KILN_LAYER_HANDLE(AutoContrast);
/// The handle users create and call EqualizationImpl through.
KILN_LAYER_HANDLE(Equalization);

}  // namespace kiln::layers

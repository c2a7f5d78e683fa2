#pragma once
// Image preprocessing layers (the same in training and inference).
//   L::Rescaling(1.0 / 255)                y = x · scale + offset
//   L::Resizing(64, 48)                    (batch, H, W, c) -> (batch, 64, 48, c), bilinear
//                                          (half-pixel centres, antialias off: jax.image.resize)
//   L::Resizing(64, 64, {.interpolation = "nearest", .crop_to_aspect_ratio = true})
//       crop_to_aspect_ratio: first the largest centred crop with the target's aspect ratio;
//       pad_to_aspect_ratio: first pad both sides with fill_value to that ratio instead
//   L::CenterCrop(32, 32)                  the centred 32x32 window; an input smaller than
//                                          the target is cropped to the aspect ratio and resized
#include <cstdint>
#include <string>

#include "kiln/core/fields.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of Rescaling (Keras's `Rescaling` constructor arguments after scale).
struct RescalingOptions {
  double offset = 0.0;  ///< Added after scaling.
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(RescalingOptions, offset)
};

/// Rescales values, y = x · scale + offset (Keras's `Rescaling`), e.g. 1/255 to map pixels
/// to [0, 1]. The same in training and inference; output shape = input shape; no weights.
/// Users create it through the handle `kiln::layers::Rescaling(scale, {...})`.
class RescalingImpl : public Layer {
 public:
  /// `scale` multiplies the input.
  explicit RescalingImpl(double scale, RescalingOptions options = {});
  std::string class_name() const override { return "Rescaling"; }
  Config get_config() const override;
  using Options = RescalingOptions;  ///< The options struct the constructor takes.
  const RescalingOptions& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(RescalingImpl, scale_)
  Shape compute_output_shape(const Shape& input_shape) override { return input_shape; }
  using Layer::compute_output_shape;

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  double scale_;
  RescalingOptions o_;
};

KILN_LAYER_HANDLE(Rescaling);

/// Options of Resizing (Keras's `Resizing` constructor arguments after height and width).
struct ResizingOptions {
  /// "bilinear" or "nearest".
  std::string interpolation = "bilinear";
  bool crop_to_aspect_ratio = false;  ///< First take the largest centred crop with the target's aspect ratio.
  bool pad_to_aspect_ratio = false;  ///< First pad both sides with fill_value to the target's aspect ratio.
  /// Only "constant" (Keras's only mode too).
  std::string fill_mode = "constant";
  double fill_value = 0.0;  ///< The padding value of pad_to_aspect_ratio.
  /// Only false.
  bool antialias = false;
  std::string data_format = "channels_last";  ///< "channels_last" (batch, H, W, C) or "channels_first".
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(ResizingOptions, interpolation, crop_to_aspect_ratio, pad_to_aspect_ratio, fill_mode, fill_value,
              antialias, data_format)
};

/// Resizes images to (height, width) (Keras's `Resizing`): (batch, H, W, C) -> (batch,
/// height, width, C), or one image of rank 3. Bilinear by default, with half-pixel centres
/// and no antialiasing, as jax.image.resize. The same in training and inference.
/// Users create it through the handle `kiln::layers::Resizing(height, width, {...})`.
class ResizingImpl : public Layer {
 public:
  /// Keras's image preprocessing layers take call(..., training=True).
  std::optional<bool> default_training() const override { return true; }
  /// The target `height` and `width`.
  ResizingImpl(int64_t height, int64_t width, ResizingOptions options = {});
  std::string class_name() const override { return "Resizing"; }
  Config get_config() const override;
  using Options = ResizingOptions;  ///< The options struct the constructor takes.
  const ResizingOptions& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(ResizingImpl, height_, width_)
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  int64_t height_, width_;
  ResizingOptions o_;
};

KILN_LAYER_HANDLE(Resizing);

/// Options of CenterCrop (Keras's `CenterCrop` constructor arguments after height and width).
struct CenterCropOptions {
  std::string data_format = "channels_last";  ///< "channels_last" (batch, H, W, C) or "channels_first".
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(CenterCropOptions, data_format)
};

/// Crops the centred (height, width) window of images (Keras's `CenterCrop`): (batch, H,
/// W, C) -> (batch, height, width, C); an input smaller than the target is cropped to the
/// aspect ratio and resized. The same in training and inference.
/// Users create it through the handle `kiln::layers::CenterCrop(height, width, {...})`.
class CenterCropImpl : public Layer {
 public:
  /// Keras's image preprocessing layers take call(..., training=True).
  std::optional<bool> default_training() const override { return true; }
  /// The target `height` and `width`.
  CenterCropImpl(int64_t height, int64_t width, CenterCropOptions options = {});
  std::string class_name() const override { return "CenterCrop"; }
  Config get_config() const override;
  using Options = CenterCropOptions;  ///< The options struct the constructor takes.
  const CenterCropOptions& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(CenterCropImpl, height_, width_)
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  int64_t height_, width_;
  CenterCropOptions o_;
};

KILN_LAYER_HANDLE(CenterCrop);

}  // namespace kiln::layers

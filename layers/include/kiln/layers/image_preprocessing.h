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

struct RescalingOptions {
  double offset = 0.0;
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(RescalingOptions, offset)
};

class RescalingImpl : public Layer {
 public:
  explicit RescalingImpl(double scale, RescalingOptions options = {});
  std::string class_name() const override { return "Rescaling"; }
  Config get_config() const override;
  using Options = RescalingOptions;
  const RescalingOptions& options() const { return o_; }
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

struct ResizingOptions {
  /// "bilinear" or "nearest".
  std::string interpolation = "bilinear";
  bool crop_to_aspect_ratio = false;
  bool pad_to_aspect_ratio = false;
  /// Only "constant" (Keras's only mode too).
  std::string fill_mode = "constant";
  double fill_value = 0.0;
  /// Only false.
  bool antialias = false;
  std::string data_format = "channels_last";
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(ResizingOptions, interpolation, crop_to_aspect_ratio, pad_to_aspect_ratio, fill_mode, fill_value,
              antialias, data_format)
};

class ResizingImpl : public Layer {
 public:
  ResizingImpl(int64_t height, int64_t width, ResizingOptions options = {});
  std::string class_name() const override { return "Resizing"; }
  Config get_config() const override;
  using Options = ResizingOptions;
  const ResizingOptions& options() const { return o_; }
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

struct CenterCropOptions {
  std::string data_format = "channels_last";
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(CenterCropOptions, data_format)
};

class CenterCropImpl : public Layer {
 public:
  CenterCropImpl(int64_t height, int64_t width, CenterCropOptions options = {});
  std::string class_name() const override { return "CenterCrop"; }
  Config get_config() const override;
  using Options = CenterCropOptions;
  const CenterCropOptions& options() const { return o_; }
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

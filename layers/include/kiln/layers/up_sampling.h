#pragma once
// UpSampling2D and UpSampling3D (UpSampling1D has its own header).
//   L::UpSampling2D({2, 3})      (batch, H, W, c) -> (batch, 2H, 3W, c): rows repeated
//                                twice and columns three times ("nearest", the default)
//   L::UpSampling2D(2, {.interpolation = "bilinear"})   half-pixel-centre bilinear, as
//                                Keras 3 (jax.image.resize): borders repeat the edge pixel
//   L::UpSampling3D({2, 2, 2})   (batch, D, H, W, c) -> (batch, 2D, 2H, 2W, c), nearest
// data_format "channels_first" puts the channels on axis 1.
#include <string>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/layers/common.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of UpSampling2D (Keras's `UpSampling2D` constructor arguments after size).
struct UpSampling2DOptions {
  std::string data_format = "channels_last";  ///< "channels_last" (batch, H, W, C) or "channels_first".
  /// "nearest" or "bilinear".
  std::string interpolation = "nearest";
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(UpSampling2DOptions, data_format, interpolation)
};

/// Repeats rows and columns (Keras's `UpSampling2D`): (batch, H, W, C) -> (batch, sh·H,
/// sw·W, C), "nearest" by default, or half-pixel-centre "bilinear" as Keras 3. No weights.
/// Users create it through the handle `kiln::layers::UpSampling2D(size, {...})`.
class UpSampling2DImpl : public Layer {
 public:
  /// `size`: one factor for both axes or (sh, sw); default 2.
  explicit UpSampling2DImpl(Size2 size = 2, UpSampling2DOptions options = {});
  std::string class_name() const override { return "UpSampling2D"; }
  Config get_config() const override;
  using Options = UpSampling2DOptions;  ///< The options struct the constructor takes.
  const UpSampling2DOptions& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(UpSampling2DImpl, size_)
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  Size2 size_;
  UpSampling2DOptions o_;
};

KILN_LAYER_HANDLE(UpSampling2D);

/// Options of UpSampling3D (Keras's `UpSampling3D` constructor arguments after size).
struct UpSampling3DOptions {
  std::string data_format = "channels_last";  ///< "channels_last" (batch, D, H, W, C) or "channels_first".
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(UpSampling3DOptions, data_format)
};

/// Repeats the depth, height and width entries (Keras's `UpSampling3D`): (batch, D, H, W,
/// C) -> (batch, sd·D, sh·H, sw·W, C), nearest. No weights. Users create it through the
/// handle `kiln::layers::UpSampling3D(size, {...})`.
class UpSampling3DImpl : public Layer {
 public:
  /// size: one factor for every axis or (depth, height, width).
  explicit UpSampling3DImpl(std::vector<int> size = {2, 2, 2}, UpSampling3DOptions options = {});
  std::string class_name() const override { return "UpSampling3D"; }
  Config get_config() const override;
  using Options = UpSampling3DOptions;  ///< The options struct the constructor takes.
  const UpSampling3DOptions& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(UpSampling3DImpl, size_)
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  std::vector<int> size_;
  UpSampling3DOptions o_;
};

KILN_LAYER_HANDLE(UpSampling3D);

}  // namespace kiln::layers

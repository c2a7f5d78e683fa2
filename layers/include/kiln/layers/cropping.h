#pragma once
// Cropping1D/2D/3D and ZeroPadding1D/3D (ZeroPadding2D is in reshaping.h):
// remove or add (before, after) entries on each spatial axis. The batch and
// channel axes are never touched. Each axis takes a Size2: one int (both
// sides) or (before, after).
//   L::Cropping1D({1, 2})          (batch, steps, c) -> (batch, steps - 3, c)
//   L::Cropping2D({2, 2}, {1, 1})  (batch, H, W, c) -> (batch, H - 4, W - 2, c)
//   L::Cropping3D(1, 1, 1)         (batch, D, H, W, c) -> (batch, D - 2, H - 2, W - 2, c)
//   L::ZeroPadding1D(2)            (batch, steps, c) -> (batch, steps + 4, c)
//   L::ZeroPadding3D(1, 1, 1)      (batch, D, H, W, c) -> (batch, D + 2, H + 2, W + 2, c)
// Keras's defaults: Cropping1D (1, 1), Cropping2D none, Cropping3D 1 per side,
// ZeroPadding1D 1, ZeroPadding3D 1 per side.
#include <memory>
#include <string>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/layers/common.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of Cropping1D: only the base-layer arguments (Keras's Cropping1D has no data_format).
struct Cropping1DOptions {
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(Cropping1DOptions)
};

/// Options of Cropping2D/3D and ZeroPadding1D/3D (Keras's arguments after the amounts).
struct PadCropOptions {
  std::string data_format = "channels_last";  ///< "channels_last" or "channels_first".
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(PadCropOptions, data_format)
};

/// The shared rule: per spatial axis, crop (or zero-pad) `before` and `after` entries.
class PadCropBase : public Layer {
 public:
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;
  /// (before, after) per spatial axis.
  const std::vector<Size2>& amounts() const { return amounts_; }

 protected:
  /// `cls` names the layer in errors; `crop` crops (else zero-pads) `amounts` (before, after)
  /// per spatial axis; `base` holds the base-layer options.
  PadCropBase(std::string cls, bool crop, std::vector<Size2> amounts, LayerOptions base, const std::string& data_format);
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;
  /// The amounts as Keras writes them in a config: (before, after), or one pair per axis.
  Config amounts_config() const;
  std::string cls_;  ///< The Keras class name, for error messages.
  bool crop_;  ///< Whether the layer crops (else it zero-pads).
  std::vector<Size2> amounts_;  ///< (before, after) per spatial axis.
  bool channels_first_ = false;  ///< Whether data_format is "channels_first".
};

/// Crops (before, after) steps off the time axis (Keras's `Cropping1D`): (batch, steps, C)
/// -> (batch, steps - before - after, C); the default crops 1 on each side. Users create it
/// through the handle `kiln::layers::Cropping1D(cropping)`, e.g. `Cropping1D({1, 2})`.
class Cropping1DImpl : public PadCropBase {
 public:
  /// `cropping`: one int (both sides) or (before, after).
  explicit Cropping1DImpl(Size2 cropping = {1, 1}, Cropping1DOptions options = {});
  std::string class_name() const override { return "Cropping1D"; }
  Config get_config() const override;
  /// Rebuilds the layer from a Keras config.
  static std::shared_ptr<Cropping1DImpl> from_config(const Config& config);
  using Options = Cropping1DOptions;  ///< The options struct the constructor takes.
  const Options& options() const { return o_; }  ///< The options this layer was created with.

 private:
  Options o_;
};

/// Crops the height and width axes (Keras's `Cropping2D`): (batch, H, W, C) -> (batch,
/// H - top - bottom, W - left - right, C); the default crops nothing. Users create it through
/// the handle `kiln::layers::Cropping2D(height_cropping, width_cropping, {...})`.
class Cropping2DImpl : public PadCropBase {
 public:
  /// Each amount: one int (both sides) or (before, after).
  explicit Cropping2DImpl(Size2 height_cropping = 0, Size2 width_cropping = 0, PadCropOptions options = {});
  std::string class_name() const override { return "Cropping2D"; }
  Config get_config() const override;
  /// Rebuilds the layer from a Keras config.
  static std::shared_ptr<Cropping2DImpl> from_config(const Config& config);
  using Options = PadCropOptions;  ///< The options struct the constructor takes.
  const Options& options() const { return o_; }  ///< The options this layer was created with.

 private:
  Options o_;
};

/// Crops the depth, height and width axes (Keras's `Cropping3D`): (batch, D, H, W, C) ->
/// (batch, D', H', W', C), each axis shortened by its (before, after); the default crops 1 on
/// every side. Users create it through the handle `kiln::layers::Cropping3D(depth, height, width, {...})`.
class Cropping3DImpl : public PadCropBase {
 public:
  /// Each amount: one int (both sides) or (before, after).
  explicit Cropping3DImpl(Size2 depth = 1, Size2 height = 1, Size2 width = 1, PadCropOptions options = {});
  std::string class_name() const override { return "Cropping3D"; }
  Config get_config() const override;
  /// Rebuilds the layer from a Keras config.
  static std::shared_ptr<Cropping3DImpl> from_config(const Config& config);
  using Options = PadCropOptions;  ///< The options struct the constructor takes.
  const Options& options() const { return o_; }  ///< The options this layer was created with.

 private:
  Options o_;
};

/// Adds zeros before and after the time axis (Keras's `ZeroPadding1D`): (batch, steps, C)
/// -> (batch, steps + before + after, C); the default pads 1 on each side. Users create it
/// through the handle `kiln::layers::ZeroPadding1D(padding, {...})`.
class ZeroPadding1DImpl : public PadCropBase {
 public:
  /// `padding`: one int (both sides) or (before, after).
  explicit ZeroPadding1DImpl(Size2 padding = 1, PadCropOptions options = {});
  std::string class_name() const override { return "ZeroPadding1D"; }
  Config get_config() const override;
  /// Rebuilds the layer from a Keras config.
  static std::shared_ptr<ZeroPadding1DImpl> from_config(const Config& config);
  using Options = PadCropOptions;  ///< The options struct the constructor takes.
  const Options& options() const { return o_; }  ///< The options this layer was created with.

 private:
  Options o_;
};

/// Adds zeros around the depth, height and width axes (Keras's `ZeroPadding3D`):
/// (batch, D, H, W, C) -> (batch, D', H', W', C), each axis lengthened by its (before, after);
/// the default pads 1 on every side. Users create it through the handle
/// `kiln::layers::ZeroPadding3D(depth, height, width, {...})`.
class ZeroPadding3DImpl : public PadCropBase {
 public:
  /// Each amount: one int (both sides) or (before, after).
  explicit ZeroPadding3DImpl(Size2 depth = 1, Size2 height = 1, Size2 width = 1, PadCropOptions options = {});
  std::string class_name() const override { return "ZeroPadding3D"; }
  Config get_config() const override;
  /// Rebuilds the layer from a Keras config.
  static std::shared_ptr<ZeroPadding3DImpl> from_config(const Config& config);
  using Options = PadCropOptions;  ///< The options struct the constructor takes.
  const Options& options() const { return o_; }  ///< The options this layer was created with.

 private:
  Options o_;
};


/// The handle of Cropping1DImpl: Cropping1D(), Cropping1D(cropping), Cropping1D(cropping, options).
class Cropping1D : public LayerClass<Cropping1DImpl, ParamList<Size2, Cropping1DOptions>> {
  using Handle = LayerClass<Cropping1DImpl, ParamList<Size2, Cropping1DOptions>>;

 public:
  using Handle::Handle;
};
/// The handle of Cropping2DImpl: Cropping2D(height_cropping, width_cropping, options), each optional.
class Cropping2D : public LayerClass<Cropping2DImpl, ParamList<Size2, Size2, PadCropOptions>> {
  using Handle = LayerClass<Cropping2DImpl, ParamList<Size2, Size2, PadCropOptions>>;

 public:
  using Handle::Handle;
};
/// The handle of Cropping3DImpl: Cropping3D(depth, height, width, options), each optional.
class Cropping3D : public LayerClass<Cropping3DImpl, ParamList<Size2, Size2, Size2, PadCropOptions>> {
  using Handle = LayerClass<Cropping3DImpl, ParamList<Size2, Size2, Size2, PadCropOptions>>;

 public:
  using Handle::Handle;
};
/// The handle of ZeroPadding1DImpl: ZeroPadding1D(padding, options), each optional.
class ZeroPadding1D : public LayerClass<ZeroPadding1DImpl, ParamList<Size2, PadCropOptions>> {
  using Handle = LayerClass<ZeroPadding1DImpl, ParamList<Size2, PadCropOptions>>;

 public:
  using Handle::Handle;
};
/// The handle of ZeroPadding3DImpl: ZeroPadding3D(depth, height, width, options), each optional.
class ZeroPadding3D : public LayerClass<ZeroPadding3DImpl, ParamList<Size2, Size2, Size2, PadCropOptions>> {
  using Handle = LayerClass<ZeroPadding3DImpl, ParamList<Size2, Size2, Size2, PadCropOptions>>;

 public:
  using Handle::Handle;
};

}  // namespace kiln::layers

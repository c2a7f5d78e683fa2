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

struct Cropping1DOptions {
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(Cropping1DOptions)
};

struct PadCropOptions {
  std::string data_format = "channels_last";
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
  PadCropBase(std::string cls, bool crop, std::vector<Size2> amounts, LayerOptions base, const std::string& data_format);
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;
  Config amounts_config() const;
  std::string cls_;
  bool crop_;
  std::vector<Size2> amounts_;
  bool channels_first_ = false;
};

class Cropping1DImpl : public PadCropBase {
 public:
  explicit Cropping1DImpl(Size2 cropping = {1, 1}, Cropping1DOptions options = {});
  std::string class_name() const override { return "Cropping1D"; }
  Config get_config() const override;
  static std::shared_ptr<Cropping1DImpl> from_config(const Config& config);
  using Options = Cropping1DOptions;
  const Options& options() const { return o_; }

 private:
  Options o_;
};

class Cropping2DImpl : public PadCropBase {
 public:
  explicit Cropping2DImpl(Size2 height_cropping = 0, Size2 width_cropping = 0, PadCropOptions options = {});
  std::string class_name() const override { return "Cropping2D"; }
  Config get_config() const override;
  static std::shared_ptr<Cropping2DImpl> from_config(const Config& config);
  using Options = PadCropOptions;
  const Options& options() const { return o_; }

 private:
  Options o_;
};

class Cropping3DImpl : public PadCropBase {
 public:
  explicit Cropping3DImpl(Size2 depth = 1, Size2 height = 1, Size2 width = 1, PadCropOptions options = {});
  std::string class_name() const override { return "Cropping3D"; }
  Config get_config() const override;
  static std::shared_ptr<Cropping3DImpl> from_config(const Config& config);
  using Options = PadCropOptions;
  const Options& options() const { return o_; }

 private:
  Options o_;
};

class ZeroPadding1DImpl : public PadCropBase {
 public:
  explicit ZeroPadding1DImpl(Size2 padding = 1, PadCropOptions options = {});
  std::string class_name() const override { return "ZeroPadding1D"; }
  Config get_config() const override;
  static std::shared_ptr<ZeroPadding1DImpl> from_config(const Config& config);
  using Options = PadCropOptions;
  const Options& options() const { return o_; }

 private:
  Options o_;
};

class ZeroPadding3DImpl : public PadCropBase {
 public:
  explicit ZeroPadding3DImpl(Size2 depth = 1, Size2 height = 1, Size2 width = 1, PadCropOptions options = {});
  std::string class_name() const override { return "ZeroPadding3D"; }
  Config get_config() const override;
  static std::shared_ptr<ZeroPadding3DImpl> from_config(const Config& config);
  using Options = PadCropOptions;
  const Options& options() const { return o_; }

 private:
  Options o_;
};


class Cropping1D : public LayerClass<Cropping1DImpl, std::tuple<Size2, Cropping1DOptions>> {
  using Handle = LayerClass<Cropping1DImpl, std::tuple<Size2, Cropping1DOptions>>;

 public:
  using Handle::Handle;
};
class Cropping2D : public LayerClass<Cropping2DImpl, std::tuple<Size2, Size2, PadCropOptions>> {
  using Handle = LayerClass<Cropping2DImpl, std::tuple<Size2, Size2, PadCropOptions>>;

 public:
  using Handle::Handle;
};
class Cropping3D : public LayerClass<Cropping3DImpl, std::tuple<Size2, Size2, Size2, PadCropOptions>> {
  using Handle = LayerClass<Cropping3DImpl, std::tuple<Size2, Size2, Size2, PadCropOptions>>;

 public:
  using Handle::Handle;
};
class ZeroPadding1D : public LayerClass<ZeroPadding1DImpl, std::tuple<Size2, PadCropOptions>> {
  using Handle = LayerClass<ZeroPadding1DImpl, std::tuple<Size2, PadCropOptions>>;

 public:
  using Handle::Handle;
};
class ZeroPadding3D : public LayerClass<ZeroPadding3DImpl, std::tuple<Size2, Size2, Size2, PadCropOptions>> {
  using Handle = LayerClass<ZeroPadding3DImpl, std::tuple<Size2, Size2, Size2, PadCropOptions>>;

 public:
  using Handle::Handle;
};

}  // namespace kiln::layers

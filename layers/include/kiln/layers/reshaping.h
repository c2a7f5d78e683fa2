#pragma once
// Reshaping layers: Flatten, Reshape, Permute, RepeatVector, ZeroPadding2D.
// The batch axis is never touched.
//   L::Flatten()                 (batch, 13, 13, 32) -> (batch, 5408), row-major (channels fastest)
//   L::Reshape({-1, 4})          (batch, 12) -> (batch, 3, 4); one -1 is inferred
//   L::Permute({2, 1})           (batch, 10, 64) -> (batch, 64, 10); dims are 1-based
//   L::RepeatVector(3)           (batch, 32) -> (batch, 3, 32)
//   L::ZeroPadding2D(1)          (batch, H, W, C) -> (batch, H+2, W+2, C)
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"
#include "kiln/layers/common.h"

namespace kiln::layers {

/// Options of Reshape, Permute and RepeatVector: only the base-layer arguments.
struct ReshapingOptions {
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(ReshapingOptions)
};

/// Options of Flatten (Keras's `Flatten` constructor arguments).
struct FlattenOptions {
  /// "channels_first" inputs are moved to channels_last before flattening, so the
  /// following Dense always sees (H, W, C) order, as in Keras 3.
  std::string data_format = "channels_last";
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(FlattenOptions, data_format)
};

/// Flattens every axis but the batch axis (Keras's `Flatten`): (batch, d1, ..., dn) ->
/// (batch, d1·...·dn). No weights. Users create it through the handle `kiln::layers::Flatten()`.
class FlattenImpl : public Layer {
 public:
  /// Creates the layer from its options.
  explicit FlattenImpl(FlattenOptions options = {});
  std::string class_name() const override { return "Flatten"; }
  Config get_config() const override;
  using Options = FlattenOptions;  ///< The options struct the constructor takes.
  const FlattenOptions& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(FlattenImpl)
  /// Keras 3 writes a build_config for this class even without weights (Python's build()).
  static constexpr bool records_build_config = true;
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  FlattenOptions o_;
};

KILN_LAYER_HANDLE(Flatten);

/// Reshapes each sample to target_shape (Keras's `Reshape`): (batch, ...) -> (batch,
/// *target_shape), one entry -1 inferred from the size. No weights. Users create it through
/// the handle `kiln::layers::Reshape(target_shape)`, e.g. `Reshape(Shape{4, -1})`.
class ReshapeImpl : public Layer {
 public:
  /// target_shape excludes the batch axis; one entry may be -1.
  explicit ReshapeImpl(Shape target_shape, ReshapingOptions options = {});
  std::string class_name() const override { return "Reshape"; }
  Config get_config() const override;
  using Options = ReshapingOptions;  ///< The options struct the constructor takes.
  const ReshapingOptions& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(ReshapeImpl, target_shape_)
  /// Keras 3 writes a build_config for this class even without weights (Python's build()).
  static constexpr bool records_build_config = true;
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;
  const Shape& target_shape() const { return target_shape_; }  ///< Each sample's new shape (no batch axis).

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  Shape target_shape_;
  ReshapingOptions o_;
};

KILN_LAYER_HANDLE(Reshape);

/// Permutes the non-batch axes (Keras's `Permute`): output axis i is input axis dims[i-1].
/// No weights. Users create it through the handle `kiln::layers::Permute(dims)`,
/// e.g. `Permute({2, 1})` swaps the last two axes of a rank-3 input.
class PermuteImpl : public Layer {
 public:
  /// dims: a permutation of 1..rank-1 (the batch axis 0 stays first).
  explicit PermuteImpl(std::vector<int> dims, ReshapingOptions options = {});
  std::string class_name() const override { return "Permute"; }
  Config get_config() const override;
  using Options = ReshapingOptions;  ///< The options struct the constructor takes.
  const ReshapingOptions& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(PermuteImpl, dims_)
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  std::vector<int> dims_;
  ReshapingOptions o_;
};

KILN_LAYER_HANDLE(Permute);

/// Repeats each sample n times (Keras's `RepeatVector`): (batch, features) -> (batch, n,
/// features). No weights. Users create it through the handle `kiln::layers::RepeatVector(n)`.
class RepeatVectorImpl : public Layer {
 public:
  /// `n` is the number of repetitions.
  explicit RepeatVectorImpl(int64_t n, ReshapingOptions options = {});
  std::string class_name() const override { return "RepeatVector"; }
  Config get_config() const override;
  using Options = ReshapingOptions;  ///< The options struct the constructor takes.
  const ReshapingOptions& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(RepeatVectorImpl, n_)
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  int64_t n_;
  ReshapingOptions o_;
};

KILN_LAYER_HANDLE(RepeatVector);

/// Options of ZeroPadding2D (Keras's `ZeroPadding2D` constructor arguments after padding).
struct ZeroPadding2DOptions {
  std::string data_format = "channels_last";  ///< "channels_last" or "channels_first" (batch, C, H, W).
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(ZeroPadding2DOptions, data_format)
};

/// Adds rows and columns of zeros around an image (Keras's `ZeroPadding2D`): (batch, H, W,
/// C) -> (batch, H + top + bottom, W + left + right, C); the default pads 1 on every side.
/// Users create it through the handle `kiln::layers::ZeroPadding2D(padding, {...})` or
/// `ZeroPadding2D(height_padding, width_padding, {...})`.
class ZeroPadding2DImpl : public Layer {
 public:
  /// padding: (ph, pw) pads ph rows at the top and at the bottom, pw columns on each side.
  explicit ZeroPadding2DImpl(Size2 padding = 1, ZeroPadding2DOptions options = {});
  /// `height_padding`: (top, bottom) rows, `width_padding`: (left, right) columns; each
  /// may be one int for both sides.
  ZeroPadding2DImpl(Size2 height_padding, Size2 width_padding, ZeroPadding2DOptions options = {});
  std::string class_name() const override { return "ZeroPadding2D"; }
  Config get_config() const override;
  /// "padding" is one key for both axes: an int, (ph, pw) or ((top, bottom), (left, right)).
  static std::shared_ptr<ZeroPadding2DImpl> from_config(const Config& config);
  using Options = ZeroPadding2DOptions;  ///< The options struct the constructor takes.
  const ZeroPadding2DOptions& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(ZeroPadding2DImpl, h_, w_)
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  Size2 h_, w_;
  ZeroPadding2DOptions o_;
};

/// The handle of ZeroPadding2DImpl: ZeroPadding2D(), (padding), (padding, options),
/// (height_padding, width_padding) and (height_padding, width_padding, options).
class ZeroPadding2D : public LayerClass<ZeroPadding2DImpl> {
  using Handle = LayerClass<ZeroPadding2DImpl>;

 public:
  using Handle::Handle;  // (), (padding), (height_padding, width_padding[, options])
  /// `padding` one int for every side, or (ph, pw), with the options.
  ZeroPadding2D(Size2 padding, ZeroPadding2DOptions options)
      : Handle(::kiln::detail::make_named_layer<ZeroPadding2DImpl>(padding, std::move(options))) {}
};

}  // namespace kiln::layers

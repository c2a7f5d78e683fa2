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

/// Base kwargs of the reshaping layers.
struct ReshapingOptions {
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(ReshapingOptions)
};

struct FlattenOptions {
  /// "channels_first" inputs are moved to channels_last before flattening, so the
  /// following Dense always sees (H, W, C) order, as in Keras 3.
  std::string data_format = "channels_last";
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(FlattenOptions, data_format)
};

class FlattenImpl : public Layer {
 public:
  explicit FlattenImpl(FlattenOptions options = {});
  std::string class_name() const override { return "Flatten"; }
  Config get_config() const override;
  using Options = FlattenOptions;
  const FlattenOptions& options() const { return o_; }
  KILN_ARGS(FlattenImpl)
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

class ReshapeImpl : public Layer {
 public:
  /// target_shape excludes the batch axis; one entry may be -1.
  explicit ReshapeImpl(Shape target_shape, ReshapingOptions options = {});
  std::string class_name() const override { return "Reshape"; }
  Config get_config() const override;
  using Options = ReshapingOptions;
  const ReshapingOptions& options() const { return o_; }
  KILN_ARGS(ReshapeImpl, target_shape_)
  static constexpr bool records_build_config = true;
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;
  const Shape& target_shape() const { return target_shape_; }

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  Shape target_shape_;
  ReshapingOptions o_;
};

KILN_LAYER_HANDLE(Reshape);

class PermuteImpl : public Layer {
 public:
  /// dims: a permutation of 1..rank-1 (the batch axis 0 stays first).
  explicit PermuteImpl(std::vector<int> dims, ReshapingOptions options = {});
  std::string class_name() const override { return "Permute"; }
  Config get_config() const override;
  using Options = ReshapingOptions;
  const ReshapingOptions& options() const { return o_; }
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

class RepeatVectorImpl : public Layer {
 public:
  explicit RepeatVectorImpl(int64_t n, ReshapingOptions options = {});
  std::string class_name() const override { return "RepeatVector"; }
  Config get_config() const override;
  using Options = ReshapingOptions;
  const ReshapingOptions& options() const { return o_; }
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

struct ZeroPadding2DOptions {
  std::string data_format = "channels_last";
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(ZeroPadding2DOptions, data_format)
};

class ZeroPadding2DImpl : public Layer {
 public:
  /// (top, bottom) rows and (left, right) columns of zeros.
  /// padding: (ph, pw) pads ph rows at the top and at the bottom, pw columns on each side.
  explicit ZeroPadding2DImpl(Size2 padding = 1, ZeroPadding2DOptions options = {});
  ZeroPadding2DImpl(Size2 height_padding, Size2 width_padding, ZeroPadding2DOptions options = {});
  std::string class_name() const override { return "ZeroPadding2D"; }
  Config get_config() const override;
  /// "padding" is one key for both axes: an int, (ph, pw) or ((top, bottom), (left, right)).
  static std::shared_ptr<ZeroPadding2DImpl> from_config(const Config& config);
  using Options = ZeroPadding2DOptions;
  const ZeroPadding2DOptions& options() const { return o_; }
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

class ZeroPadding2D : public LayerClass<ZeroPadding2DImpl> {
  using Handle = LayerClass<ZeroPadding2DImpl>;

 public:
  using Handle::Handle;  // (), (padding), (height_padding, width_padding[, options])
  ZeroPadding2D(Size2 padding, ZeroPadding2DOptions options)
      : Handle(::kiln::detail::make_named_layer<ZeroPadding2DImpl>(padding, std::move(options))) {}
};

}  // namespace kiln::layers

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

#include "kiln/nn/layer.h"
#include "kiln/layers/common.h"

namespace kiln::layers {

/// Base kwargs of the reshaping layers.
struct ReshapingOptions {
  std::string name;
  bool trainable = true;
  DType dtype = DType::float32;
  std::optional<Shape> input_shape;
};

struct FlattenOptions {
  /// "channels_first" inputs are moved to channels_last before flattening, so the
  /// following Dense always sees (H, W, C) order, as in Keras 3.
  std::string data_format = "channels_last";
  std::string name;
  bool trainable = true;
  DType dtype = DType::float32;
  std::optional<Shape> input_shape;
};

class FlattenImpl : public Layer {
 public:
  explicit FlattenImpl(FlattenOptions options = {});
  std::string class_name() const override { return "Flatten"; }
  Config get_config() const override;
  static std::shared_ptr<FlattenImpl> from_config(const Config& config);
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  FlattenOptions o_;
};

class Flatten : public LayerHandle<FlattenImpl> {
 public:
  using LayerHandle<FlattenImpl>::LayerHandle;
  Flatten(FlattenOptions options = {}) : LayerHandle(std::make_shared<FlattenImpl>(std::move(options))) { ptr()->name(); }
};

class ReshapeImpl : public Layer {
 public:
  /// target_shape excludes the batch axis; one entry may be -1.
  explicit ReshapeImpl(Shape target_shape, ReshapingOptions options = {});
  std::string class_name() const override { return "Reshape"; }
  Config get_config() const override;
  static std::shared_ptr<ReshapeImpl> from_config(const Config& config);
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;
  const Shape& target_shape() const { return target_; }

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  Shape target_;
};

class Reshape : public LayerHandle<ReshapeImpl> {
 public:
  using LayerHandle<ReshapeImpl>::LayerHandle;
  explicit Reshape(Shape target_shape, ReshapingOptions options = {})
      : LayerHandle(std::make_shared<ReshapeImpl>(std::move(target_shape), std::move(options))) {
    ptr()->name();
  }
};

class PermuteImpl : public Layer {
 public:
  /// dims: a permutation of 1..rank-1 (the batch axis 0 stays first).
  explicit PermuteImpl(std::vector<int> dims, ReshapingOptions options = {});
  std::string class_name() const override { return "Permute"; }
  Config get_config() const override;
  static std::shared_ptr<PermuteImpl> from_config(const Config& config);
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  std::vector<int> dims_;
};

class Permute : public LayerHandle<PermuteImpl> {
 public:
  using LayerHandle<PermuteImpl>::LayerHandle;
  explicit Permute(std::vector<int> dims, ReshapingOptions options = {})
      : LayerHandle(std::make_shared<PermuteImpl>(std::move(dims), std::move(options))) {
    ptr()->name();
  }
};

class RepeatVectorImpl : public Layer {
 public:
  explicit RepeatVectorImpl(int64_t n, ReshapingOptions options = {});
  std::string class_name() const override { return "RepeatVector"; }
  Config get_config() const override;
  static std::shared_ptr<RepeatVectorImpl> from_config(const Config& config);
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  int64_t n_;
};

class RepeatVector : public LayerHandle<RepeatVectorImpl> {
 public:
  using LayerHandle<RepeatVectorImpl>::LayerHandle;
  explicit RepeatVector(int64_t n, ReshapingOptions options = {})
      : LayerHandle(std::make_shared<RepeatVectorImpl>(n, std::move(options))) {
    ptr()->name();
  }
};

struct ZeroPadding2DOptions {
  std::string data_format = "channels_last";
  std::string name;
  bool trainable = true;
  DType dtype = DType::float32;
  std::optional<Shape> input_shape;
};

class ZeroPadding2DImpl : public Layer {
 public:
  /// (top, bottom) rows and (left, right) columns of zeros.
  ZeroPadding2DImpl(Size2 height_padding, Size2 width_padding, ZeroPadding2DOptions options = {});
  std::string class_name() const override { return "ZeroPadding2D"; }
  Config get_config() const override;
  static std::shared_ptr<ZeroPadding2DImpl> from_config(const Config& config);
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  Size2 h_, w_;
  ZeroPadding2DOptions o_;
};

class ZeroPadding2D : public LayerHandle<ZeroPadding2DImpl> {
 public:
  using LayerHandle<ZeroPadding2DImpl>::LayerHandle;
  /// padding = p: p rows/columns on every side; {ph, pw}: ph rows top and bottom, pw columns left and right.
  ZeroPadding2D(Size2 padding = 1, ZeroPadding2DOptions options = {})
      : ZeroPadding2D(Size2(padding.first), Size2(padding.second), std::move(options)) {}
  ZeroPadding2D(Size2 height_padding, Size2 width_padding, ZeroPadding2DOptions options = {})
      : LayerHandle(std::make_shared<ZeroPadding2DImpl>(height_padding, width_padding, std::move(options))) {
    ptr()->name();
  }
};

}  // namespace kiln::layers

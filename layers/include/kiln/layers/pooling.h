#pragma once
// Max and average pooling over windows, 2D and 1D.
//   2D: (batch, H, W, C) -> (batch, OH, OW, C); 1D: (batch, steps, C) -> (batch, new_steps, C)
//   "valid": O = floor((I - pool) / stride) + 1;  "same": O = ceil(I / stride)
//   strides default to pool_size (Keras's strides=None).
// Average pooling with "same" divides by the number of real (unpadded) elements,
// and max pooling ignores the padding, as TF does.
//
//   L::MaxPooling2D();                         // 2x2, stride 2
//   L::AveragePooling2D(3, {.strides = 1, .padding = "same"});
//   L::MaxPooling1D(2);
#include <cstdint>
#include <optional>
#include <string>

#include "kiln/nn/layer.h"
#include "kiln/layers/common.h"

namespace kiln::layers {

struct Pooling2DOptions {
  Size2 strides;                   // default (not given): pool_size
  std::string padding = "valid";   // "valid" or "same"
  std::string data_format = "channels_last";
  std::string name;
  bool trainable = true;
  DType dtype = DType::float32;
  std::optional<Shape> input_shape;
};

/// Shared by MaxPooling2D and AveragePooling2D.
class Pooling2DImpl : public Layer {
 public:
  Pooling2DImpl(Size2 pool_size, Pooling2DOptions options, bool is_max);
  Config get_config() const override;
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;
  Size2 pool_size() const { return pool_size_; }
  Size2 strides() const { return o_.strides; }
  const Pooling2DOptions& options() const { return o_; }

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;
  static Pooling2DOptions options_from_config(const Config& c, const std::string& cls, Size2& pool_size);

 private:
  Size2 pool_size_;
  Pooling2DOptions o_;
  bool is_max_;
};

class MaxPooling2DImpl : public Pooling2DImpl {
 public:
  explicit MaxPooling2DImpl(Size2 pool_size = 2, Pooling2DOptions options = {})
      : Pooling2DImpl(pool_size, std::move(options), true) {}
  std::string class_name() const override { return "MaxPooling2D"; }
  static std::shared_ptr<MaxPooling2DImpl> from_config(const Config& config);
};

class AveragePooling2DImpl : public Pooling2DImpl {
 public:
  explicit AveragePooling2DImpl(Size2 pool_size = 2, Pooling2DOptions options = {})
      : Pooling2DImpl(pool_size, std::move(options), false) {}
  std::string class_name() const override { return "AveragePooling2D"; }
  static std::shared_ptr<AveragePooling2DImpl> from_config(const Config& config);
};

class MaxPooling2D : public LayerHandle<MaxPooling2DImpl> {
 public:
  using LayerHandle<MaxPooling2DImpl>::LayerHandle;
  MaxPooling2D(Size2 pool_size = 2, Pooling2DOptions options = {})
      : LayerHandle(std::make_shared<MaxPooling2DImpl>(pool_size, std::move(options))) {
    ptr()->name();
  }
};
class AveragePooling2D : public LayerHandle<AveragePooling2DImpl> {
 public:
  using LayerHandle<AveragePooling2DImpl>::LayerHandle;
  AveragePooling2D(Size2 pool_size = 2, Pooling2DOptions options = {})
      : LayerHandle(std::make_shared<AveragePooling2DImpl>(pool_size, std::move(options))) {
    ptr()->name();
  }
};
using MaxPool2D = MaxPooling2D;
using AvgPool2D = AveragePooling2D;

struct Pooling1DOptions {
  int strides = 0;                 // 0 (not given): pool_size
  std::string padding = "valid";   // "valid" or "same"
  std::string data_format = "channels_last";
  std::string name;
  bool trainable = true;
  DType dtype = DType::float32;
  std::optional<Shape> input_shape;
};

/// Shared by MaxPooling1D and AveragePooling1D: a 2D pool over a unit height axis.
class Pooling1DImpl : public Layer {
 public:
  Pooling1DImpl(int pool_size, Pooling1DOptions options, bool is_max);
  Config get_config() const override;
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;
  int pool_size() const { return pool_size_; }
  int strides() const { return o_.strides; }

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;
  static Pooling1DOptions options_from_config(const Config& c, const std::string& cls, int& pool_size);

 private:
  int pool_size_;
  Pooling1DOptions o_;
  bool is_max_;
};

class MaxPooling1DImpl : public Pooling1DImpl {
 public:
  explicit MaxPooling1DImpl(int pool_size = 2, Pooling1DOptions options = {})
      : Pooling1DImpl(pool_size, std::move(options), true) {}
  std::string class_name() const override { return "MaxPooling1D"; }
  static std::shared_ptr<MaxPooling1DImpl> from_config(const Config& config);
};

class AveragePooling1DImpl : public Pooling1DImpl {
 public:
  explicit AveragePooling1DImpl(int pool_size = 2, Pooling1DOptions options = {})
      : Pooling1DImpl(pool_size, std::move(options), false) {}
  std::string class_name() const override { return "AveragePooling1D"; }
  static std::shared_ptr<AveragePooling1DImpl> from_config(const Config& config);
};

class MaxPooling1D : public LayerHandle<MaxPooling1DImpl> {
 public:
  using LayerHandle<MaxPooling1DImpl>::LayerHandle;
  MaxPooling1D(int pool_size = 2, Pooling1DOptions options = {})
      : LayerHandle(std::make_shared<MaxPooling1DImpl>(pool_size, std::move(options))) {
    ptr()->name();
  }
};
class AveragePooling1D : public LayerHandle<AveragePooling1DImpl> {
 public:
  using LayerHandle<AveragePooling1DImpl>::LayerHandle;
  AveragePooling1D(int pool_size = 2, Pooling1DOptions options = {})
      : LayerHandle(std::make_shared<AveragePooling1DImpl>(pool_size, std::move(options))) {
    ptr()->name();
  }
};
using MaxPool1D = MaxPooling1D;
using AvgPool1D = AveragePooling1D;

}  // namespace kiln::layers

#pragma once
// MaxPooling3D and AveragePooling3D: (batch, D, H, W, C) -> (batch, OD, OH, OW, C)
// (channels_first: (batch, C, D, H, W)). Per axis, "valid": O = floor((I - pool) / stride) + 1,
// "same": O = ceil(I / stride); strides default to pool_size. Average pooling with
// "same" divides by the number of real (unpadded) elements, as Keras.
//   L::MaxPooling3D({2, 2, 2});   L::AveragePooling3D({3, 3, 3}, {.strides = {1, 1, 1}, .padding = "same"});
// pool_size and strides: one int for every axis or three.
#include <string>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of MaxPooling3D and AveragePooling3D (Keras's constructor arguments after pool_size).
struct Pooling3DOptions {
  std::vector<int> strides;  ///< Window step: one int for every axis or three; empty (Keras's None): pool_size.
  std::string padding = "valid";  ///< "valid" or "same" (output size ceil(I / stride)).
  std::string data_format = "channels_last";  ///< "channels_last" (batch, D, H, W, C) or "channels_first".
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(Pooling3DOptions, strides, padding, data_format)
};

/// What MaxPooling3D and AveragePooling3D share: max or mean over 3D windows, (batch, D,
/// H, W, C) -> (batch, OD, OH, OW, C); per axis "valid": O = floor((I - pool) / stride) + 1,
/// "same": O = ceil(I / stride). Average pooling with "same" counts only real elements.
class Pooling3DImpl : public Layer {
 public:
  using Options = Pooling3DOptions;  ///< The options struct the constructor takes.
  KILN_ARGS(Pooling3DImpl, pool_size_)
  Config get_config() const override;
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;
  const std::vector<int>& pool_size() const { return pool_size_; }  ///< The window size on each axis.
  const Pooling3DOptions& options() const { return o_; }  ///< The options this layer was created with.

 protected:
  /// `pool_size`: one int for every axis or three; `is_max` picks max instead of mean.
  Pooling3DImpl(std::vector<int> pool_size, Pooling3DOptions options, bool is_max);
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  std::vector<int> pool_size_;
  Pooling3DOptions o_;
  bool is_max_;
};

/// Max pooling over 3D windows (Keras's `MaxPooling3D`; pool_size (2, 2, 2), strides =
/// pool_size, "valid"). Users create it through the handle `kiln::layers::MaxPooling3D(pool_size, {...})`.
class MaxPooling3DImpl : public Pooling3DImpl {
 public:
  /// `pool_size`: one int for every axis or three.
  explicit MaxPooling3DImpl(std::vector<int> pool_size = {2, 2, 2}, Pooling3DOptions options = {})
      : Pooling3DImpl(std::move(pool_size), std::move(options), true) {}
  std::string class_name() const override { return "MaxPooling3D"; }
};

/// Average pooling over 3D windows (Keras's `AveragePooling3D`; pool_size (2, 2, 2), strides =
/// pool_size, "valid"). Users create it through the handle `kiln::layers::AveragePooling3D(pool_size, {...})`.
class AveragePooling3DImpl : public Pooling3DImpl {
 public:
  /// `pool_size`: one int for every axis or three.
  explicit AveragePooling3DImpl(std::vector<int> pool_size = {2, 2, 2}, Pooling3DOptions options = {})
      : Pooling3DImpl(std::move(pool_size), std::move(options), false) {}
  std::string class_name() const override { return "AveragePooling3D"; }
};

/// The handle of MaxPooling3DImpl: MaxPooling3D(), (pool_size) or (pool_size, options).
class MaxPooling3D : public LayerClass<MaxPooling3DImpl, ParamList<std::vector<int>, Pooling3DOptions>> {
  using Handle = LayerClass<MaxPooling3DImpl, ParamList<std::vector<int>, Pooling3DOptions>>;

 public:
  using Handle::Handle;
};
/// The handle of AveragePooling3DImpl: AveragePooling3D(), (pool_size) or (pool_size, options).
class AveragePooling3D : public LayerClass<AveragePooling3DImpl, ParamList<std::vector<int>, Pooling3DOptions>> {
  using Handle = LayerClass<AveragePooling3DImpl, ParamList<std::vector<int>, Pooling3DOptions>>;

 public:
  using Handle::Handle;
};

}  // namespace kiln::layers

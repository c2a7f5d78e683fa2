#pragma once
// BasePoolingImpl<N>: max or average pooling over windows of a rank-N input
// (Keras's BasePooling), shared by MaxPooling1D/2D and AveragePooling1D/2D.
//   2D: (batch, H, W, C) -> (batch, OH, OW, C); 1D: (batch, steps, C) -> (batch, new_steps, C)
//   "valid": O = floor((I - pool) / stride) + 1;  "same": O = ceil(I / stride)
//   strides default to pool_size (Keras's strides=None).
// Average pooling with "same" divides by the number of real (unpadded) elements,
// and max pooling ignores the padding, as TF does. 1D pools run as 2D pools
// over a unit height axis.
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "kiln/core/fields.h"
#include "kiln/layers/common.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

template <int N>
/// Options of the 1D and 2D pooling layers (Keras's constructor arguments after pool_size).
struct PoolingOptions {
  SpatialSize<N> strides{};        ///< Window step; 0 (not given): pool_size, as Keras's strides=None.
  std::string padding = "valid";   ///< "valid" (no padding) or "same" (output size ceil(I / stride)).
  std::string data_format = "channels_last";  ///< "channels_last" or "channels_first".
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(PoolingOptions, strides, padding, data_format)
};
using Pooling1DOptions = PoolingOptions<1>;  ///< Options of MaxPooling1D and AveragePooling1D.
using Pooling2DOptions = PoolingOptions<2>;  ///< Options of MaxPooling2D and AveragePooling2D.

/// Max or average pooling over windows of a rank-N input (Keras's BasePooling), shared
/// by MaxPooling1D/2D and AveragePooling1D/2D: 2D (batch, H, W, C) -> (batch, OH, OW, C),
/// 1D (batch, steps, C) -> (batch, new_steps, C); "valid": O = floor((I - pool) / stride) + 1,
/// "same": O = ceil(I / stride). Users create the concrete layers through their handles.
template <int N>
class BasePoolingImpl : public Layer {
 public:
  using Size = SpatialSize<N>;  ///< The per-axis size type: an int (1D) or an int pair (2D).
  using Options = PoolingOptions<N>;  ///< The options struct the constructor takes.
  KILN_ARGS(BasePoolingImpl, pool_size_)
  /// Keras 1's border_mode and dim_ordering (2D), Keras 2's pool_length and stride (1D).
  static Config upgrade_entry(const Config& entry);

  /// `pool_size` is the window size; `is_max` picks max instead of average pooling.
  BasePoolingImpl(Size pool_size, PoolingOptions<N> options, bool is_max);
  Config get_config() const override;
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;
  Size pool_size() const { return pool_size_; }  ///< The window size.
  Size strides() const { return o_.strides; }  ///< The window step (0 when not given: pool_size).
  const PoolingOptions<N>& options() const { return o_; }  ///< The options this layer was created with.

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  Size pool_size_;
  PoolingOptions<N> o_;
  bool is_max_;
};

extern template class BasePoolingImpl<1>;
extern template class BasePoolingImpl<2>;
using Pooling1DImpl = BasePoolingImpl<1>;  ///< BasePoolingImpl of rank 1.
using Pooling2DImpl = BasePoolingImpl<2>;  ///< BasePoolingImpl of rank 2.

/// "MaxPooling2D", "AveragePooling1D", ...
std::string pooling_class_name(int rank, bool is_max);

/// The concrete pooling layers differ only in rank and reduction, which fix
/// their class name.
template <class Derived, int N, bool IsMax>
class PoolingLayerImpl : public BasePoolingImpl<N> {
 public:
  /// `pool_size` is the window size (default 2 on every axis).
  explicit PoolingLayerImpl(SpatialSize<N> pool_size = 2, PoolingOptions<N> options = {})
      : BasePoolingImpl<N>(pool_size, std::move(options), IsMax) {}
  /// The Keras class name, e.g. "MaxPooling2D".
  std::string class_name() const override { return pooling_class_name(N, IsMax); }
};

}  // namespace kiln::layers

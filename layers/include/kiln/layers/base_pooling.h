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
struct PoolingOptions {
  SpatialSize<N> strides{};        // 0 (not given): pool_size
  std::string padding = "valid";   // "valid" or "same"
  std::string data_format = "channels_last";
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(PoolingOptions, strides, padding, data_format)
};
using Pooling1DOptions = PoolingOptions<1>;
using Pooling2DOptions = PoolingOptions<2>;

template <int N>
class BasePoolingImpl : public Layer {
 public:
  using Size = SpatialSize<N>;
  using Options = PoolingOptions<N>;
  KILN_ARGS(BasePoolingImpl, pool_size_)
  /// Keras 1's border_mode and dim_ordering (2D), Keras 2's pool_length and stride (1D).
  static Config upgrade_entry(const Config& entry);

  BasePoolingImpl(Size pool_size, PoolingOptions<N> options, bool is_max);
  Config get_config() const override;
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;
  Size pool_size() const { return pool_size_; }
  Size strides() const { return o_.strides; }
  const PoolingOptions<N>& options() const { return o_; }

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
using Pooling1DImpl = BasePoolingImpl<1>;
using Pooling2DImpl = BasePoolingImpl<2>;

/// "MaxPooling2D", "AveragePooling1D", ...
std::string pooling_class_name(int rank, bool is_max);

/// The concrete pooling layers differ only in rank and reduction, which fix
/// their class name.
template <class Derived, int N, bool IsMax>
class PoolingLayerImpl : public BasePoolingImpl<N> {
 public:
  explicit PoolingLayerImpl(SpatialSize<N> pool_size = 2, PoolingOptions<N> options = {})
      : BasePoolingImpl<N>(pool_size, std::move(options), IsMax) {}
  std::string class_name() const override { return pooling_class_name(N, IsMax); }
};

}  // namespace kiln::layers

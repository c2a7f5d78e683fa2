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

#include "kiln/layers/common.h"
#include "kiln/nn/layer.h"

namespace kiln::layers {

template <int N>
struct PoolingOptions {
  SpatialSize<N> strides{};        // 0 (not given): pool_size
  std::string padding = "valid";   // "valid" or "same"
  std::string data_format = "channels_last";
  std::string name;
  bool trainable = true;
  DType dtype = DType::float32;
  std::optional<Shape> input_shape;
};
using Pooling1DOptions = PoolingOptions<1>;
using Pooling2DOptions = PoolingOptions<2>;

template <int N>
class BasePoolingImpl : public Layer {
 public:
  using Size = SpatialSize<N>;

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
  /// Reads pool_size and the options of a config written by get_config (or by Keras).
  static std::pair<Size, PoolingOptions<N>> options_from_config(const Config& c, const std::string& cls);

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
inline std::string pooling_class_name(int rank, bool is_max) {
  return std::string(is_max ? "MaxPooling" : "AveragePooling") + std::to_string(rank) + "D";
}

/// The concrete pooling layers differ only in rank and reduction, which fix
/// their class name; Derived is the layer class from_config makes.
template <class Derived, int N, bool IsMax>
class PoolingLayerImpl : public BasePoolingImpl<N> {
 public:
  explicit PoolingLayerImpl(SpatialSize<N> pool_size = 2, PoolingOptions<N> options = {})
      : BasePoolingImpl<N>(pool_size, std::move(options), IsMax) {}
  std::string class_name() const override { return pooling_class_name(N, IsMax); }
  static std::shared_ptr<Derived> from_config(const Config& config) {
    auto [pool_size, options] = BasePoolingImpl<N>::options_from_config(config, pooling_class_name(N, IsMax));
    return std::make_shared<Derived>(pool_size, std::move(options));
  }
};

/// The handle of a pooling layer: L::MaxPooling2D(), L::AveragePooling1D(3, {.strides = 1}).
template <class Impl, int N>
class PoolingLayer : public LayerHandle<Impl> {
 public:
  using LayerHandle<Impl>::LayerHandle;
  PoolingLayer(SpatialSize<N> pool_size = 2, PoolingOptions<N> options = {})
      : LayerHandle<Impl>(std::make_shared<Impl>(pool_size, std::move(options))) {
    this->ptr()->name();
  }
};

}  // namespace kiln::layers

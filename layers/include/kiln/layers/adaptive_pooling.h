#pragma once
// Adaptive pooling (Keras 3.12+): pools to a fixed output size whatever the
// input size. Along each spatial axis of length n pooled to m, output i is the
// mean (or max) of inputs [floor(i·n/m), ceil((i+1)·n/m)).
//   L::AdaptiveAveragePooling2D({4, 4})   (batch, H, W, C) -> (batch, 4, 4, C)
//   L::AdaptiveMaxPooling1D({3})          (batch, steps, C) -> (batch, 3, C)
//   L::AdaptiveMaxPooling3D({2, 2, 2}, {.data_format = "channels_first"})
// output_size: one int for every axis, or one per spatial axis.
#include <string>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of the adaptive pooling layers (Keras's constructor arguments after output_size).
struct AdaptivePoolingOptions {
  /// "channels_last" (batch, *spatial, C) or "channels_first" (batch, C, *spatial).
  std::string data_format = "channels_last";
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(AdaptivePoolingOptions, data_format)
};

/// What the adaptive pooling layers share (Keras 3.12+'s AdaptiveAveragePooling1D
/// ... AdaptiveMaxPooling3D): pools each spatial axis to a fixed output_size,
/// whatever its input length, by mean or max over [floor(i·n/m), ceil((i+1)·n/m)).
/// (batch, *spatial, C) -> (batch, *output_size, C) in channels_last. Users create
/// the concrete layers through handles such as `kiln::layers::AdaptiveAveragePooling2D({4, 4})`.
class AdaptivePoolingImpl : public Layer {
 public:
  using Options = AdaptivePoolingOptions;  ///< The options struct the constructor takes.
  KILN_ARGS(AdaptivePoolingImpl, output_size_)
  std::string class_name() const override;
  Config get_config() const override;
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;
  /// The output length of each spatial axis (one per axis, a single int expanded).
  const std::vector<int>& output_size() const { return output_size_; }
  const AdaptivePoolingOptions& options() const { return o_; }  ///< The options this layer was created with.

 protected:
  /// `spatial_rank` is 1, 2 or 3; `is_max` picks max instead of mean pooling;
  /// `output_size` is one int for every axis or one per axis.
  AdaptivePoolingImpl(int spatial_rank, bool is_max, std::vector<int> output_size, AdaptivePoolingOptions options);
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  int rank_;
  bool is_max_;
  std::vector<int> output_size_;
  AdaptivePoolingOptions o_;
};

template <int N, bool IsMax>
/// The rank-N adaptive pooling layer (max when IsMax, else average); the
/// Adaptive{Average,Max}Pooling{1,2,3}DImpl aliases name its six instances.
class AdaptivePoolingNImpl : public AdaptivePoolingImpl {
 public:
  /// `output_size`: one int for every spatial axis, or one per axis.
  explicit AdaptivePoolingNImpl(std::vector<int> output_size, AdaptivePoolingOptions options = {})
      : AdaptivePoolingImpl(N, IsMax, std::move(output_size), std::move(options)) {}
};

/// Keras's AdaptiveAveragePooling1D: (batch, steps, C) -> (batch, output_size, C).
using AdaptiveAveragePooling1DImpl = AdaptivePoolingNImpl<1, false>;
/// Keras's AdaptiveAveragePooling2D: (batch, H, W, C) -> (batch, h, w, C).
using AdaptiveAveragePooling2DImpl = AdaptivePoolingNImpl<2, false>;
/// Keras's AdaptiveAveragePooling3D: (batch, D, H, W, C) -> (batch, d, h, w, C).
using AdaptiveAveragePooling3DImpl = AdaptivePoolingNImpl<3, false>;
/// Keras's AdaptiveMaxPooling1D: (batch, steps, C) -> (batch, output_size, C).
using AdaptiveMaxPooling1DImpl = AdaptivePoolingNImpl<1, true>;
/// Keras's AdaptiveMaxPooling2D: (batch, H, W, C) -> (batch, h, w, C).
using AdaptiveMaxPooling2DImpl = AdaptivePoolingNImpl<2, true>;
/// Keras's AdaptiveMaxPooling3D: (batch, D, H, W, C) -> (batch, d, h, w, C).
using AdaptiveMaxPooling3DImpl = AdaptivePoolingNImpl<3, true>;

KILN_LAYER_HANDLE(AdaptiveAveragePooling1D);
KILN_LAYER_HANDLE(AdaptiveAveragePooling2D);
KILN_LAYER_HANDLE(AdaptiveAveragePooling3D);
KILN_LAYER_HANDLE(AdaptiveMaxPooling1D);
KILN_LAYER_HANDLE(AdaptiveMaxPooling2D);
KILN_LAYER_HANDLE(AdaptiveMaxPooling3D);

}  // namespace kiln::layers

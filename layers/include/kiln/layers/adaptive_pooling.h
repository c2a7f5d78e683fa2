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

struct AdaptivePoolingOptions {
  std::string data_format = "channels_last";
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(AdaptivePoolingOptions, data_format)
};

class AdaptivePoolingImpl : public Layer {
 public:
  using Options = AdaptivePoolingOptions;
  KILN_ARGS(AdaptivePoolingImpl, output_size_)
  std::string class_name() const override;
  Config get_config() const override;
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;
  const std::vector<int>& output_size() const { return output_size_; }
  const AdaptivePoolingOptions& options() const { return o_; }

 protected:
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
class AdaptivePoolingNImpl : public AdaptivePoolingImpl {
 public:
  explicit AdaptivePoolingNImpl(std::vector<int> output_size, AdaptivePoolingOptions options = {})
      : AdaptivePoolingImpl(N, IsMax, std::move(output_size), std::move(options)) {}
};

using AdaptiveAveragePooling1DImpl = AdaptivePoolingNImpl<1, false>;
using AdaptiveAveragePooling2DImpl = AdaptivePoolingNImpl<2, false>;
using AdaptiveAveragePooling3DImpl = AdaptivePoolingNImpl<3, false>;
using AdaptiveMaxPooling1DImpl = AdaptivePoolingNImpl<1, true>;
using AdaptiveMaxPooling2DImpl = AdaptivePoolingNImpl<2, true>;
using AdaptiveMaxPooling3DImpl = AdaptivePoolingNImpl<3, true>;

KILN_LAYER_HANDLE(AdaptiveAveragePooling1D);
KILN_LAYER_HANDLE(AdaptiveAveragePooling2D);
KILN_LAYER_HANDLE(AdaptiveAveragePooling3D);
KILN_LAYER_HANDLE(AdaptiveMaxPooling1D);
KILN_LAYER_HANDLE(AdaptiveMaxPooling2D);
KILN_LAYER_HANDLE(AdaptiveMaxPooling3D);

}  // namespace kiln::layers

#pragma once
// Conv2D: 2D cross-correlation (the kernel is not flipped), then bias and activation.
//   x: (batch, H, W, C_in) (channels_last) -> (batch, OH, OW, filters)
//   kernel: (kh, kw, C_in / groups, filters), bias: (filters,)
//   OH = ceil((H - (kh-1)·dilation) / stride) for "valid", ceil(H / stride) for "same"
//   ("same" pads like TF: the odd pixel goes at the bottom/right).
// groups > 1 splits the channels into `groups` independent convolutions.
// data_format "channels_first" takes (batch, C, H, W) and transposes around the NHWC kernel.
//
//   L::Conv2D(32, 3, {.activation = "relu", .input_shape = Shape{28, 28, 1}});
//   L::Conv2D(64, {3, 5}, {.strides = 2, .padding = "same"});
#include <cstdint>
#include <optional>
#include <string>

#include "kiln/nn/activations.h"
#include "kiln/nn/layer.h"
#include "kiln/layers/common.h"

namespace kiln::layers {

struct Conv2DOptions {
  Size2 strides = 1;
  std::string padding = "valid";  // "valid" or "same"
  std::string data_format = "channels_last";
  Size2 dilation_rate = 1;
  int groups = 1;
  std::string activation = "linear";
  bool use_bias = true;
  InitializerArg kernel_initializer = "glorot_uniform";
  InitializerArg bias_initializer = "zeros";
  regularizers::RegularizerPtr kernel_regularizer = nullptr;
  regularizers::RegularizerPtr bias_regularizer = nullptr;
  regularizers::RegularizerPtr activity_regularizer = nullptr;
  constraints::ConstraintPtr kernel_constraint = nullptr;
  constraints::ConstraintPtr bias_constraint = nullptr;
  std::string name;
  bool trainable = true;
  DType dtype = DType::float32;
  std::optional<Shape> input_shape;  // without the batch axis
};

class Conv2DImpl : public Layer {
 public:
  Conv2DImpl(int64_t filters, Size2 kernel_size, Conv2DOptions options = {});
  std::string class_name() const override { return "Conv2D"; }
  Config get_config() const override;
  static std::shared_ptr<Conv2DImpl> from_config(const Config& config);
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;

  int64_t filters() const { return filters_; }
  Size2 kernel_size() const { return kernel_size_; }
  const Conv2DOptions& options() const { return o_; }
  Variable kernel() const { return kernel_; }
  Variable bias() const { return bias_; }

 protected:
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training) override;
  using Layer::build;
  using Layer::call;

 private:
  int64_t filters_;
  Size2 kernel_size_;
  Conv2DOptions o_;
  activations::Activation activation_;
  Variable kernel_, bias_;
};

class Conv2D : public LayerHandle<Conv2DImpl> {
 public:
  using LayerHandle<Conv2DImpl>::LayerHandle;
  Conv2D(int64_t filters, Size2 kernel_size, Conv2DOptions options = {})
      : LayerHandle(std::make_shared<Conv2DImpl>(filters, kernel_size, std::move(options))) {
    ptr()->name();
  }
};
/// Keras 2 alias.
using Convolution2D = Conv2D;

}  // namespace kiln::layers

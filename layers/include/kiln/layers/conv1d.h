#pragma once
// Conv1D: 1D cross-correlation over the steps axis, then bias and activation.
//   x: (batch, steps, C_in) -> (batch, new_steps, filters)
//   kernel: (kernel_size, C_in / groups, filters), bias: (filters,)
// padding "causal" left-pads by (kernel_size-1)·dilation_rate so output[t] sees only x[<= t].
// Computed by kiln::conv2d on a unit height axis.
//
//   L::Conv1D(16, 3, {.padding = "causal", .activation = "relu"});
#include <cstdint>
#include <optional>
#include <string>

#include "kiln/nn/activations.h"
#include "kiln/nn/layer.h"

namespace kiln::layers {

struct Conv1DOptions {
  int strides = 1;
  std::string padding = "valid";  // "valid", "same" or "causal"
  std::string data_format = "channels_last";
  int dilation_rate = 1;
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

class Conv1DImpl : public Layer {
 public:
  Conv1DImpl(int64_t filters, int64_t kernel_size, Conv1DOptions options = {});
  std::string class_name() const override { return "Conv1D"; }
  Config get_config() const override;
  static std::shared_ptr<Conv1DImpl> from_config(const Config& config);
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;

  int64_t filters() const { return filters_; }
  int64_t kernel_size() const { return kernel_size_; }
  const Conv1DOptions& options() const { return o_; }
  Variable kernel() const { return kernel_; }
  Variable bias() const { return bias_; }

 protected:
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training) override;
  using Layer::build;
  using Layer::call;

 private:
  int64_t filters_, kernel_size_;
  Conv1DOptions o_;
  activations::Activation activation_;
  Variable kernel_, bias_;
};

class Conv1D : public LayerHandle<Conv1DImpl> {
 public:
  using LayerHandle<Conv1DImpl>::LayerHandle;
  Conv1D(int64_t filters, int64_t kernel_size, Conv1DOptions options = {})
      : LayerHandle(std::make_shared<Conv1DImpl>(filters, kernel_size, std::move(options))) {
    ptr()->name();
  }
};
using Convolution1D = Conv1D;

}  // namespace kiln::layers

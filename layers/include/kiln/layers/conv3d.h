#pragma once
// Conv3D: (batch, D, H, W, C) -> (batch, OD, OH, OW, filters) (channels_first:
// (batch, C, D, H, W)). kernel: (kd, kh, kw, C, filters), bias: (filters,).
// Per axis, "valid": O = floor((I - k') / stride) + 1, "same": O = ceil(I / stride),
// with k' = (k - 1)·dilation + 1. kernel_size, strides and dilation_rate take one
// int for every axis or three.
//   L::Conv3D(8, {3, 3, 3}, {.padding = "same", .activation = "relu"});
// Computed as kd 2D convolutions, one per kernel depth tap, over the matching
// input depth slices, summed; groups > 1 splits the channels.
#include <cstdint>
#include <string>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/nn/activations.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

struct Conv3DOptions {
  std::vector<int> strides = {1, 1, 1};
  std::string padding = "valid";
  std::string data_format = "channels_last";
  std::vector<int> dilation_rate = {1, 1, 1};
  /// Channel groups: group g convolves input channels [g·C/G, (g+1)·C/G) into
  /// filters [g·F/G, (g+1)·F/G); the kernel is (kd, kh, kw, C / groups, filters).
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
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(Conv3DOptions, strides, padding, data_format, dilation_rate, groups, activation, use_bias,
              kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer, activity_regularizer,
              kernel_constraint, bias_constraint)
};

class Conv3DImpl : public Layer {
 public:
  using Options = Conv3DOptions;
  Conv3DImpl(int64_t filters, std::vector<int> kernel_size, Conv3DOptions options = {});
  std::string class_name() const override { return "Conv3D"; }
  Config get_config() const override;
  KILN_ARGS(Conv3DImpl, filters_, kernel_size_)
  const Conv3DOptions& options() const { return o_; }
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;

 protected:
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training) override;
  using Layer::build;
  using Layer::call;

 private:
  int64_t filters_;
  std::vector<int> kernel_size_;
  Conv3DOptions o_;
  activations::Activation activation_;
  Variable kernel_, bias_;
};

KILN_LAYER_HANDLE(Conv3D);

}  // namespace kiln::layers

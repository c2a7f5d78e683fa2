#pragma once
// Dense: output = activation(x · kernel + bias).
//   x: (batch, ..., in) -> (batch, ..., units); kernel (in, units), bias (units,).
//   Inputs of rank > 2 are contracted over their last axis (as tf.tensordot).
//
//   namespace L = kiln::layers;
//   L::Dense d(64, {.activation = "relu", .kernel_regularizer = kiln::regularizers::L2(0.02)});
//   kiln::Tensor y = d(x);            // builds the kernel from x.shape()[-1]
//   d->kernel(); d->bias();
#include <cstdint>
#include <optional>
#include <string>

#include "kiln/nn/activations.h"
#include "kiln/nn/layer.h"

namespace kiln::layers {

struct DenseOptions {
  std::string activation = "linear";  // any name of kiln::activations::get
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
  std::optional<Shape> input_shape;  // without the batch axis, like Keras's input_shape
};

class DenseImpl : public Layer {
 public:
  DenseImpl(int64_t units, DenseOptions options = {});
  std::string class_name() const override { return "Dense"; }
  Config get_config() const override;
  static std::shared_ptr<DenseImpl> from_config(const Config& config);
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;

  int64_t units() const { return units_; }
  const DenseOptions& options() const { return o_; }
  /// (in, units); undefined before build.
  Variable kernel() const { return kernel_; }
  /// (units,); undefined before build or without use_bias.
  Variable bias() const { return bias_; }

 protected:
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training) override;
  using Layer::build;
  using Layer::call;

 private:
  int64_t units_;
  DenseOptions o_;
  activations::Activation activation_;
  Variable kernel_, bias_;
};

class Dense : public LayerHandle<DenseImpl> {
 public:
  using LayerHandle<DenseImpl>::LayerHandle;
  explicit Dense(int64_t units, DenseOptions options = {})
      : LayerHandle(std::make_shared<DenseImpl>(units, std::move(options))) {
    ptr()->name();  // auto names follow construction order (dense, dense_1)
  }
};

}  // namespace kiln::layers

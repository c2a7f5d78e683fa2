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

#include "kiln/core/fields.h"
#include "kiln/layers/lora.h"
#include "kiln/nn/activations.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"
#include "kiln/nn/quantizers.h"

namespace kiln::layers {

/// Options of Dense (Keras's `Dense` constructor arguments after units).
struct DenseOptions {
  std::string activation = "linear";  ///< Activation of the output; any name of kiln::activations::get.
  bool use_bias = true;  ///< Adds the learned bias (units,).
  InitializerArg kernel_initializer = "glorot_uniform";  ///< Initializer of the kernel.
  InitializerArg bias_initializer = "zeros";  ///< Initializer of the bias.
  regularizers::RegularizerPtr kernel_regularizer = nullptr;  ///< Penalty on the kernel (none by default).
  regularizers::RegularizerPtr bias_regularizer = nullptr;  ///< Penalty on the bias (none by default).
  regularizers::RegularizerPtr activity_regularizer = nullptr;  ///< Penalty on the layer's output (none by default).
  constraints::ConstraintPtr kernel_constraint = nullptr;  ///< Constraint on the kernel (none by default).
  constraints::ConstraintPtr bias_constraint = nullptr;  ///< Constraint on the bias (none by default).
  std::optional<int> lora_rank;  ///< Enables LoRA of this rank when the layer is built (kiln/layers/lora.h).
  std::optional<double> lora_alpha;  ///< LoRA's scale numerator; Keras's Dense resets it to the rank at build.
  /// A quantized layer's config (set by quantize(), read from Keras's files).
  std::optional<quantizers::QuantizationConfig> quantization_config;
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(DenseOptions, activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
              bias_regularizer, activity_regularizer, kernel_constraint, bias_constraint, quantization_config, lora_rank,
              lora_alpha)
};

/// Densely connected layer, output = activation(x · kernel + bias) (Keras's `Dense`):
/// x (batch, ..., in) -> (batch, ..., units), kernel (in, units), bias (units,); inputs of
/// rank > 2 are contracted over their last axis. Defaults: no activation, a bias,
/// glorot_uniform kernel. Users create it through the handle `kiln::layers::Dense(units, {...})`,
/// e.g. `Dense(64, {.activation = "relu"})`.
class DenseImpl : public LoraLayer, public quantizers::Quantizable {
 public:
  using Options = DenseOptions;  ///< The options struct the constructor takes.
  /// `units` is the output width.
  DenseImpl(int64_t units, DenseOptions options = {});
  std::string class_name() const override { return "Dense"; }
  Config get_config() const override;
  /// Keras 1's output_dim / input_dim / bias keys; Keras 3 drops a null activity_regularizer.
  static Config upgrade_entry(const Config& entry);
  /// Drops a null activity_regularizer, as Keras 3's Dense.get_config leaves it out.
  static void to_keras3_config(Config& config);
  KILN_ARGS(DenseImpl, units_)
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;

  int64_t units() const { return units_; }  ///< The output width.
  const DenseOptions& options() const { return o_; }  ///< The options this layer was created with.
  /// (in, units); undefined before build. Under LoRA, the frozen base kernel.
  Variable kernel() const { return kernel_; }
  /// (units,); undefined before build or without use_bias.
  Variable bias() const { return bias_; }
  /// Keras's quantize. "int8": the kernel becomes int8 with one float scale per unit
  /// (kernel ≈ int8 / kernel_scale), and calls quantize their inputs per row unless the
  /// config's activation_quantizer is none; the policy becomes "int8_from_<policy>".
  /// "int4": the kernel's int4 values are packed two per byte along the units, (in,
  /// ceil(units / 2)), with a scale and a zero point per group of block_size inputs and
  /// unit (default 128), or one scale per unit (block_size -1); the inputs stay in
  /// floats; the policy becomes "int4/<block_size>_from_<policy>".
  void quantize(const std::string& mode,
                const std::optional<quantizers::QuantizationConfig>& config = std::nullopt) override;
  /// After quantize: (units,), or int4's grouped (n_groups, units); undefined otherwise.
  Variable kernel_scale() const { return kernel_scale_; }
  /// int4's grouped zero points, (n_groups, units) int8; undefined otherwise.
  Variable kernel_zero() const { return kernel_zero_; }
  /// int4's grouped row-to-group map, floor(row / block_size) as float32; undefined otherwise.
  Variable g_idx() const { return g_idx_; }
  /// Keras's order for a quantized layer: kernel, bias, kernel_scale (then kernel_zero, g_idx).
  std::vector<StoredVariable> stored_variables() const override;

 protected:
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training) override;
  /// The kernel that LoRA adapts, with its regularizer and constraint.
  LoraBase lora_base() const override;
  /// The quantized call: int8 (or per-channel int4) products with int32 sums and float
  /// scales, or the dequantized grouped int4 kernel.
  Tensor quantized_matmul(const Tensor& x) const;
  /// The whole call of an int8 layer with quantized inputs, a bias, no LoRA, float32 compute and no
  /// tape: the product, its scales, the bias and a relu in one pass (the activation after it, if
  /// another). None where the layer takes the general path.
  std::optional<Tensor> int8_with_bias(const Tensor& x) const;
  /// The quantized kernel's variables for `in` inputs (Keras's _int8_build, _int4_build).
  /// @{
  void build_int8(int64_t in);
  void build_int4(int64_t in);
  /// @}
  using Layer::build;
  using Layer::call;

 private:
  int64_t units_;
  DenseOptions o_;
  activations::Activation activation_;
  Variable kernel_, bias_, kernel_scale_, kernel_zero_, g_idx_;
};

KILN_LAYER_HANDLE(Dense);

}  // namespace kiln::layers

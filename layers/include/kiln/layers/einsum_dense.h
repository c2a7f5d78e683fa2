#pragma once
// EinsumDense: a dense layer whose contraction is an einsum equation, as
// keras.layers.EinsumDense. The equation names the input, the kernel and the
// output ("abc,cd->abd"); output_shape gives the output's sizes without the
// batch axis (None where they follow the input); bias_axes picks the output
// letters the bias spans.
//
//   namespace L = kiln::layers;
//   L::EinsumDense proj("abc,cde->abde", {None, 4, 16}, {.bias_axes = "de"});
//   kiln::Tensor y = proj(x);   // x: (batch, T, C) -> (batch, T, 4, 16)
#include <optional>
#include <string>

#include "kiln/core/fields.h"
#include "kiln/layers/lora.h"
#include "kiln/nn/activations.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of EinsumDense (Keras's `EinsumDense` constructor arguments after equation and output_shape).
struct EinsumDenseOptions {
  std::string activation = "linear";  ///< Activation of the output; any name of kiln::activations::get.
  std::optional<std::string> bias_axes;  ///< The output letters the bias spans (e.g. "de"); none: no bias.
  InitializerArg kernel_initializer = "glorot_uniform";  ///< Initializer of the kernel.
  InitializerArg bias_initializer = "zeros";  ///< Initializer of the bias.
  regularizers::RegularizerPtr kernel_regularizer = nullptr;  ///< Penalty on the kernel (none by default).
  regularizers::RegularizerPtr bias_regularizer = nullptr;  ///< Penalty on the bias (none by default).
  regularizers::RegularizerPtr activity_regularizer = nullptr;  ///< Penalty on the layer's output (none by default).
  constraints::ConstraintPtr kernel_constraint = nullptr;  ///< Constraint on the kernel (none by default).
  constraints::ConstraintPtr bias_constraint = nullptr;  ///< Constraint on the bias (none by default).
  std::optional<int> lora_rank;  ///< Enables LoRA of this rank when the layer is built (kiln/layers/lora.h).
  std::optional<double> lora_alpha;  ///< LoRA's scale numerator (the delta is scaled by lora_alpha / lora_rank).
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(EinsumDenseOptions, activation, bias_axes, kernel_initializer, bias_initializer, kernel_regularizer,
              bias_regularizer, activity_regularizer, kernel_constraint, bias_constraint, lora_rank, lora_alpha)
};

/// What an EinsumDense equation implies for one input shape (Keras's _analyze_einsum_string).
struct EinsumDenseShapes {
  Shape kernel;  ///< The kernel's shape.
  std::optional<Shape> bias;  ///< The bias's shape; none without bias_axes.
  Shape output;  ///< The output's shape, batch axis included.
  /// The kernel axes contracted with the input, and those that appear in the output (for
  /// the initializer's fan-in and fan-out).
  /// @{
  std::vector<int> kernel_input_axes, kernel_output_axes;
/// @}
};
/// Analyses `equation` for an input of `input_shape`, with the output sizes `output_shape`
/// (batch axis excluded, None where they follow the input); throws on a malformed equation.
EinsumDenseShapes analyze_einsum_dense(const std::string& equation, const std::optional<std::string>& bias_axes,
                                       const Shape& input_shape, const Shape& output_shape);

/// A dense layer whose contraction is an einsum equation (Keras's `EinsumDense`): the
/// equation names the input, kernel and output axes ("abc,cd->abd"), output_shape the output
/// sizes without the batch axis (None where they follow the input), bias_axes the output
/// letters the bias spans; then activation. E.g. "abc,cde->abde" with output_shape
/// {None, 4, 16}: (batch, T, C) -> (batch, T, 4, 16). Users create it through the handle
/// `kiln::layers::EinsumDense(equation, output_shape, {...})`.
class EinsumDenseImpl : public LoraLayer {
 public:
  using Options = EinsumDenseOptions;  ///< The options struct the constructor takes.
  /// `equation` "input,kernel->output"; `output_shape` the output sizes without the batch axis.
  EinsumDenseImpl(std::string equation, Shape output_shape, EinsumDenseOptions options = {});
  std::string class_name() const override { return "EinsumDense"; }
  Config get_config() const override;
  /// Keras also accepts a single int as output_shape.
  static Config upgrade_entry(const Config& entry);
  KILN_ARGS(EinsumDenseImpl, equation_, output_shape_)
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;

  const std::string& equation() const { return equation_; }  ///< The einsum equation.
  const EinsumDenseOptions& options() const { return o_; }  ///< The options this layer was created with.
  Variable kernel() const { return kernel_; }  ///< The kernel, shaped by the equation; undefined before build.
  /// Undefined without bias_axes.
  Variable bias() const { return bias_; }

 protected:
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training) override;
  /// The kernel that LoRA adapts, with its regularizer and constraint.
  LoraBase lora_base() const override;
  using Layer::build;
  using Layer::call;

 private:
  std::string equation_;
  Shape output_shape_;
  EinsumDenseOptions o_;
  activations::Activation activation_;
  Variable kernel_, bias_;
};

KILN_LAYER_HANDLE(EinsumDense);

}  // namespace kiln::layers

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
#include <utility>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/layers/lora.h"
#include "kiln/nn/activations.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"
#include "kiln/nn/quantizers.h"

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
  /// A quantized layer's config (set by quantize(), read from Keras's files).
  std::optional<quantizers::QuantizationConfig> quantization_config;
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(EinsumDenseOptions, activation, bias_axes, kernel_initializer, bias_initializer, kernel_regularizer,
              bias_regularizer, activity_regularizer, kernel_constraint, bias_constraint, lora_rank, lora_alpha,
              quantization_config)
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

/// How an EinsumDense equation is quantized (Keras's _analyze_quantization_info): the
/// axes the input's and the kernel's scales reduce over, and how each kept-dims scale is
/// permuted (transpose), widened (expand) and narrowed (squeeze) to broadcast against
/// the output. Axes follow Keras's rules exactly, so scales have Keras's shapes.
struct EinsumQuantizationAxes {
  /// The axes absent from the output, per operand.
  /// @{
  std::vector<int> input_reduced, kernel_reduced;
  /// @}
  /// The permutation applied to each kept-dims scale.
  /// @{
  std::vector<int> input_transpose, kernel_transpose;
  /// @}
  /// The size-1 axes inserted into each scale after the permutation.
  /// @{
  std::vector<int> input_expand, kernel_expand;
  /// @}
  /// The axes squeezed out of each scale last.
  /// @{
  std::vector<int> input_squeeze, kernel_squeeze;
  /// @}
  std::string gradient_equation;  ///< "output,kernel->input": the inputs' gradient through the kernel.
};
/// Analyses `equation` for quantization with inputs of rank `input_rank` (which fills in
/// an ellipsis); throws on a malformed equation.
EinsumQuantizationAxes analyze_einsum_quantization(const std::string& equation, int64_t input_rank);

/// A dense layer whose contraction is an einsum equation (Keras's `EinsumDense`): the
/// equation names the input, kernel and output axes ("abc,cd->abd"), output_shape the output
/// sizes without the batch axis (None where they follow the input), bias_axes the output
/// letters the bias spans; then activation. E.g. "abc,cde->abde" with output_shape
/// {None, 4, 16}: (batch, T, C) -> (batch, T, 4, 16). Users create it through the handle
/// `kiln::layers::EinsumDense(equation, output_shape, {...})`.
class EinsumDenseImpl : public LoraLayer, public quantizers::Quantizable {
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
  /// Keras's quantize. "int8": the kernel becomes int8 with one float scale per output
  /// slice (reduced over the contracted axes), and calls quantize their inputs over their
  /// contracted axes unless the config's activation_quantizer is none; the policy becomes
  /// "int8_from_<policy>". "int4": the kernel, flattened to (contracted sizes, other
  /// sizes), is packed two values per byte along its columns, with a scale and a zero
  /// point per group of block_size rows and column (default 128), or one scale per
  /// column (block_size -1); the policy becomes "int4/<block_size>_from_<policy>".
  void quantize(const std::string& mode,
                const std::optional<quantizers::QuantizationConfig>& config = std::nullopt) override;
  /// Keras quantizes EinsumDense itself, not its subclasses.
  bool supports_quantization() const override { return class_name() == "EinsumDense"; }
  /// After quantize: int8's, shaped to broadcast against the output; int4's (columns,) or
  /// grouped (n_groups, columns); undefined otherwise.
  Variable kernel_scale() const { return kernel_scale_; }
  /// int4's grouped zero points, (n_groups, columns) int8; undefined otherwise.
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
  using Layer::build;
  using Layer::call;

 private:
  /// Creates the quantized kernel of a float kernel of `kernel_shape`, and its scales, for
  /// o_.quantization_config (Keras's _int8_build, _int4_build).
  void build_quantized(const Shape& kernel_shape);
  /// The quantized contraction: int8 products with int32 sums and float scales, or the
  /// dequantized int4 kernel.
  Tensor quantized_einsum(const Tensor& x) const;
  /// The int8 product of quantized inputs and the kernel, divided by both scales (Keras's _int8_call).
  Tensor int8_einsum(const Tensor& xq, const Tensor& x_scale) const;
  /// The quantized kernel as floats of `dtype`, in the float kernel's shape.
  Tensor dequantized_kernel(DType dtype) const;
  /// The kernel's int8 values and its scale, shaped as Keras stores it.
  std::pair<Tensor, Tensor> quantize_kernel(const Tensor& kernel) const;
  /// int4's (rows, columns): the contracted axes' sizes multiplied, and the others'.
  std::pair<int64_t, int64_t> int4_matrix_shape() const;

  std::string equation_;
  Shape output_shape_;
  EinsumDenseOptions o_;
  activations::Activation activation_;
  Variable kernel_, bias_, kernel_scale_, kernel_zero_, g_idx_;
  Shape kernel_shape_;  ///< The float kernel's shape.
  int64_t input_rank_ = 0;
  EinsumQuantizationAxes quantization_axes_;
};

KILN_LAYER_HANDLE(EinsumDense);

}  // namespace kiln::layers

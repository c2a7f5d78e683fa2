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
#include "kiln/nn/activations.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

struct EinsumDenseOptions {
  std::string activation = "linear";
  std::optional<std::string> bias_axes;
  InitializerArg kernel_initializer = "glorot_uniform";
  InitializerArg bias_initializer = "zeros";
  regularizers::RegularizerPtr kernel_regularizer = nullptr;
  regularizers::RegularizerPtr bias_regularizer = nullptr;
  regularizers::RegularizerPtr activity_regularizer = nullptr;
  constraints::ConstraintPtr kernel_constraint = nullptr;
  constraints::ConstraintPtr bias_constraint = nullptr;
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(EinsumDenseOptions, activation, bias_axes, kernel_initializer, bias_initializer, kernel_regularizer,
              bias_regularizer, activity_regularizer, kernel_constraint, bias_constraint)
};

/// What an EinsumDense equation implies for one input shape (Keras's _analyze_einsum_string).
struct EinsumDenseShapes {
  Shape kernel;
  std::optional<Shape> bias;
  Shape output;  // batch axis included
  std::vector<int> kernel_input_axes, kernel_output_axes;
};
EinsumDenseShapes analyze_einsum_dense(const std::string& equation, const std::optional<std::string>& bias_axes,
                                       const Shape& input_shape, const Shape& output_shape);

class EinsumDenseImpl : public Layer {
 public:
  using Options = EinsumDenseOptions;
  EinsumDenseImpl(std::string equation, Shape output_shape, EinsumDenseOptions options = {});
  std::string class_name() const override { return "EinsumDense"; }
  Config get_config() const override;
  /// Keras also accepts a single int as output_shape.
  static Config upgrade_entry(const Config& entry);
  KILN_ARGS(EinsumDenseImpl, equation_, output_shape_)
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;

  const std::string& equation() const { return equation_; }
  const EinsumDenseOptions& options() const { return o_; }
  Variable kernel() const { return kernel_; }
  /// Undefined without bias_axes.
  Variable bias() const { return bias_; }

 protected:
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training) override;
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

#pragma once
// Activation layers (no weights, except PReLU's alpha).
//   Activation("relu")          any name of kiln::activations::get
//   ReLU({.max_value, .negative_slope = 0, .threshold = 0}):
//       f(x) = min(x, max_value) for x >= threshold, negative_slope · (x - threshold) otherwise
//   Softmax({.axis = -1})       exp(x) / sum(exp(x)) over axis
//   LeakyReLU(0.3)              x for x >= 0, negative_slope · x otherwise (Keras 3 default 0.3)
//   ELU(1.0)                    x for x > 0, alpha · (exp(x) - 1) otherwise
//   PReLU()                     max(x, 0) - alpha · max(-x, 0), alpha (input_shape[1:], shared_axes set to 1)
#include <optional>
#include <string>
#include <vector>

#include "kiln/nn/activations.h"
#include "kiln/core/fields.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Base kwargs of the weightless activation layers.
struct ActivationOptions {
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(ActivationOptions)
};

/// Shared shape rule: the output shape is the input shape.
class ElementwiseLayer : public Layer {
 public:
  using Layer::Layer;
  Shape compute_output_shape(const Shape& input_shape) override { return input_shape; }
  using Layer::compute_output_shape;
};

/// Applies a named activation function elementwise (Keras's `Activation`).
/// Input and output have the same (any) shape; there are no weights.
/// Users create it through the handle `kiln::layers::Activation(name)`, e.g.
/// `Activation("relu")`; `name` is any name kiln::activations::get knows.
class ActivationImpl : public ElementwiseLayer {
 public:
  /// `activation` names the function (kiln::activations::get).
  explicit ActivationImpl(std::string activation, ActivationOptions options = {});
  std::string class_name() const override { return "Activation"; }
  Config get_config() const override;
  using Options = ActivationOptions;  ///< The options struct the constructor takes.
  const ActivationOptions& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(ActivationImpl, activation_)
  const std::string& activation() const { return activation_; }  ///< The activation's name, as given.

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  std::string activation_;
  ActivationOptions o_;
  activations::Activation fn_;
};

KILN_LAYER_HANDLE(Activation);

/// Options of ReLU (Keras's `ReLU` constructor arguments).
struct ReLUOptions {
  std::optional<double> max_value;  ///< Cap on the output; none: unbounded.
  double negative_slope = 0.0;  ///< Slope for x < threshold (0: plain ReLU).
  double threshold = 0.0;  ///< Values below it are scaled by negative_slope.
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(ReLUOptions, max_value, negative_slope, threshold)
};

/// Rectified linear unit with optional cap, leak and threshold (Keras's `ReLU`).
/// f(x) = min(x, max_value) for x >= threshold, negative_slope · (x - threshold)
/// otherwise. Output shape = input shape; no weights. Defaults give max(x, 0).
/// Users create it through the handle `kiln::layers::ReLU({...})`.
class ReLUImpl : public ElementwiseLayer {
 public:
  /// Creates the layer from its options.
  explicit ReLUImpl(ReLUOptions options = {});
  std::string class_name() const override { return "ReLU"; }
  Config get_config() const override;
  using Options = ReLUOptions;  ///< The options struct the constructor takes.
  const ReLUOptions& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(ReLUImpl)

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  ReLUOptions o_;
};

KILN_LAYER_HANDLE(ReLU);

/// Options of Softmax (Keras's `Softmax` constructor arguments).
struct SoftmaxOptions {
  int axis = -1;  ///< The axis the softmax normalises over (default: the last).
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(SoftmaxOptions, axis)
};

/// Softmax over one axis, exp(x) / sum(exp(x)) (Keras's `Softmax`).
/// Output shape = input shape; no weights; the axis defaults to -1.
/// Users create it through the handle `kiln::layers::Softmax({.axis = ...})`.
class SoftmaxImpl : public ElementwiseLayer {
 public:
  /// Creates the layer from its options.
  explicit SoftmaxImpl(SoftmaxOptions options = {});
  std::string class_name() const override { return "Softmax"; }
  Config get_config() const override;
  using Options = SoftmaxOptions;  ///< The options struct the constructor takes.
  const SoftmaxOptions& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(SoftmaxImpl)

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  SoftmaxOptions o_;
};

KILN_LAYER_HANDLE(Softmax);

/// Leaky ReLU, x for x >= 0 and negative_slope · x otherwise (Keras's `LeakyReLU`).
/// Output shape = input shape; no weights; negative_slope defaults to 0.3 as in Keras 3.
/// Users create it through the handle `kiln::layers::LeakyReLU(slope)`.
class LeakyReLUImpl : public ElementwiseLayer {
 public:
  /// `negative_slope` multiplies negative inputs.
  explicit LeakyReLUImpl(double negative_slope = 0.3, ActivationOptions options = {});
  std::string class_name() const override { return "LeakyReLU"; }
  Config get_config() const override;
  using Options = ActivationOptions;  ///< The options struct the constructor takes.
  const ActivationOptions& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(LeakyReLUImpl, negative_slope_)
  /// tf.keras 2 called negative_slope alpha.
  static Config upgrade_entry(const Config& entry);
  double negative_slope() const { return negative_slope_; }  ///< The slope for negative inputs.

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  double negative_slope_;
  ActivationOptions o_;
};

KILN_LAYER_HANDLE(LeakyReLU);

/// Exponential linear unit, x for x > 0 and alpha · (exp(x) - 1) otherwise (Keras's `ELU`).
/// Output shape = input shape; no weights; alpha defaults to 1.0.
/// Users create it through the handle `kiln::layers::ELU(alpha)`.
class ELUImpl : public ElementwiseLayer {
 public:
  /// `alpha` scales the negative part.
  explicit ELUImpl(double alpha = 1.0, ActivationOptions options = {});
  std::string class_name() const override { return "ELU"; }
  Config get_config() const override;
  using Options = ActivationOptions;  ///< The options struct the constructor takes.
  const ActivationOptions& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(ELUImpl, alpha_)

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  double alpha_;
  ActivationOptions o_;
};

KILN_LAYER_HANDLE(ELU);

/// Options of PReLU (Keras's `PReLU` constructor arguments).
struct PReLUOptions {
  InitializerArg alpha_initializer = "zeros";  ///< Initializer of the learned slope alpha.
  regularizers::RegularizerPtr alpha_regularizer = nullptr;  ///< Regularizer of alpha (none by default).
  constraints::ConstraintPtr alpha_constraint = nullptr;  ///< Constraint on alpha (none by default).
  std::vector<int> shared_axes;  ///< 1-based axes sharing one alpha (e.g. {1, 2} for images); empty: None
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(PReLUOptions, alpha_initializer, alpha_regularizer, alpha_constraint, shared_axes)
};

/// Parametric ReLU with a learned slope (Keras's `PReLU`):
/// f(x) = max(x, 0) - alpha · max(-x, 0). alpha has shape input_shape[1:], with the
/// shared_axes set to 1; it starts at zeros. Output shape = input shape.
/// Users create it through the handle `kiln::layers::PReLU({...})`.
class PReLUImpl : public ElementwiseLayer {
 public:
  /// Creates the layer from its options; alpha is made at build.
  explicit PReLUImpl(PReLUOptions options = {});
  std::string class_name() const override { return "PReLU"; }
  Config get_config() const override;
  using Options = PReLUOptions;  ///< The options struct the constructor takes.
  const PReLUOptions& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(PReLUImpl)
  Variable alpha() const { return alpha_; }  ///< The learned slope; undefined before build.

 protected:
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training) override;
  using Layer::build;
  using Layer::call;

 private:
  PReLUOptions o_;
  Variable alpha_;
};

KILN_LAYER_HANDLE(PReLU);

}  // namespace kiln::layers

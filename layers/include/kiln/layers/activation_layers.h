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

class ActivationImpl : public ElementwiseLayer {
 public:
  explicit ActivationImpl(std::string activation, ActivationOptions options = {});
  std::string class_name() const override { return "Activation"; }
  Config get_config() const override;
  using Options = ActivationOptions;
  const ActivationOptions& options() const { return o_; }
  KILN_ARGS(ActivationImpl, activation_)
  const std::string& activation() const { return activation_; }

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  std::string activation_;
  ActivationOptions o_;
  activations::Activation fn_;
};

KILN_LAYER_HANDLE(Activation);

struct ReLUOptions {
  std::optional<double> max_value;  // none: unbounded
  double negative_slope = 0.0;
  double threshold = 0.0;
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(ReLUOptions, max_value, negative_slope, threshold)
};

class ReLUImpl : public ElementwiseLayer {
 public:
  explicit ReLUImpl(ReLUOptions options = {});
  std::string class_name() const override { return "ReLU"; }
  Config get_config() const override;
  using Options = ReLUOptions;
  const ReLUOptions& options() const { return o_; }
  KILN_ARGS(ReLUImpl)

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  ReLUOptions o_;
};

KILN_LAYER_HANDLE(ReLU);

struct SoftmaxOptions {
  int axis = -1;
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(SoftmaxOptions, axis)
};

class SoftmaxImpl : public ElementwiseLayer {
 public:
  explicit SoftmaxImpl(SoftmaxOptions options = {});
  std::string class_name() const override { return "Softmax"; }
  Config get_config() const override;
  using Options = SoftmaxOptions;
  const SoftmaxOptions& options() const { return o_; }
  KILN_ARGS(SoftmaxImpl)

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  SoftmaxOptions o_;
};

KILN_LAYER_HANDLE(Softmax);

class LeakyReLUImpl : public ElementwiseLayer {
 public:
  explicit LeakyReLUImpl(double negative_slope = 0.3, ActivationOptions options = {});
  std::string class_name() const override { return "LeakyReLU"; }
  Config get_config() const override;
  using Options = ActivationOptions;
  const ActivationOptions& options() const { return o_; }
  KILN_ARGS(LeakyReLUImpl, negative_slope_)
  /// tf.keras 2 called negative_slope alpha.
  static Config upgrade_entry(const Config& entry);
  double negative_slope() const { return negative_slope_; }

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  double negative_slope_;
  ActivationOptions o_;
};

KILN_LAYER_HANDLE(LeakyReLU);

class ELUImpl : public ElementwiseLayer {
 public:
  explicit ELUImpl(double alpha = 1.0, ActivationOptions options = {});
  std::string class_name() const override { return "ELU"; }
  Config get_config() const override;
  using Options = ActivationOptions;
  const ActivationOptions& options() const { return o_; }
  KILN_ARGS(ELUImpl, alpha_)

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  double alpha_;
  ActivationOptions o_;
};

KILN_LAYER_HANDLE(ELU);

struct PReLUOptions {
  InitializerArg alpha_initializer = "zeros";
  regularizers::RegularizerPtr alpha_regularizer = nullptr;
  constraints::ConstraintPtr alpha_constraint = nullptr;
  std::vector<int> shared_axes;  // 1-based axes sharing one alpha (e.g. {1, 2} for images); empty: None
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(PReLUOptions, alpha_initializer, alpha_regularizer, alpha_constraint, shared_axes)
};

class PReLUImpl : public ElementwiseLayer {
 public:
  explicit PReLUImpl(PReLUOptions options = {});
  std::string class_name() const override { return "PReLU"; }
  Config get_config() const override;
  using Options = PReLUOptions;
  const PReLUOptions& options() const { return o_; }
  KILN_ARGS(PReLUImpl)
  Variable alpha() const { return alpha_; }

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

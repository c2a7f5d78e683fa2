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
#include "kiln/nn/layer.h"

namespace kiln::layers {

/// Base kwargs of the weightless activation layers.
struct ActivationOptions {
  std::string name;
  bool trainable = true;
  DType dtype = DType::float32;
  std::optional<Shape> input_shape;
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
  static std::shared_ptr<ActivationImpl> from_config(const Config& config);
  const std::string& activation() const { return activation_name_; }

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  std::string activation_name_;
  activations::Activation fn_;
};

class Activation : public LayerHandle<ActivationImpl> {
 public:
  using LayerHandle<ActivationImpl>::LayerHandle;
  explicit Activation(std::string activation, ActivationOptions options = {})
      : LayerHandle(std::make_shared<ActivationImpl>(std::move(activation), std::move(options))) {
    ptr()->name();
  }
};

struct ReLUOptions {
  std::optional<double> max_value;  // none: unbounded
  double negative_slope = 0.0;
  double threshold = 0.0;
  std::string name;
  bool trainable = true;
  DType dtype = DType::float32;
  std::optional<Shape> input_shape;
};

class ReLUImpl : public ElementwiseLayer {
 public:
  explicit ReLUImpl(ReLUOptions options = {});
  std::string class_name() const override { return "ReLU"; }
  Config get_config() const override;
  static std::shared_ptr<ReLUImpl> from_config(const Config& config);

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  ReLUOptions o_;
};

class ReLU : public LayerHandle<ReLUImpl> {
 public:
  using LayerHandle<ReLUImpl>::LayerHandle;
  ReLU(ReLUOptions options = {}) : LayerHandle(std::make_shared<ReLUImpl>(std::move(options))) { ptr()->name(); }
};

struct SoftmaxOptions {
  int axis = -1;
  std::string name;
  bool trainable = true;
  DType dtype = DType::float32;
  std::optional<Shape> input_shape;
};

class SoftmaxImpl : public ElementwiseLayer {
 public:
  explicit SoftmaxImpl(SoftmaxOptions options = {});
  std::string class_name() const override { return "Softmax"; }
  Config get_config() const override;
  static std::shared_ptr<SoftmaxImpl> from_config(const Config& config);

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  SoftmaxOptions o_;
};

class Softmax : public LayerHandle<SoftmaxImpl> {
 public:
  using LayerHandle<SoftmaxImpl>::LayerHandle;
  Softmax(SoftmaxOptions options = {}) : LayerHandle(std::make_shared<SoftmaxImpl>(std::move(options))) { ptr()->name(); }
};

class LeakyReLUImpl : public ElementwiseLayer {
 public:
  explicit LeakyReLUImpl(double negative_slope = 0.3, ActivationOptions options = {});
  std::string class_name() const override { return "LeakyReLU"; }
  Config get_config() const override;
  static std::shared_ptr<LeakyReLUImpl> from_config(const Config& config);
  double negative_slope() const { return slope_; }

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  double slope_;
};

class LeakyReLU : public LayerHandle<LeakyReLUImpl> {
 public:
  using LayerHandle<LeakyReLUImpl>::LayerHandle;
  LeakyReLU(double negative_slope = 0.3, ActivationOptions options = {})
      : LayerHandle(std::make_shared<LeakyReLUImpl>(negative_slope, std::move(options))) {
    ptr()->name();
  }
};

class ELUImpl : public ElementwiseLayer {
 public:
  explicit ELUImpl(double alpha = 1.0, ActivationOptions options = {});
  std::string class_name() const override { return "ELU"; }
  Config get_config() const override;
  static std::shared_ptr<ELUImpl> from_config(const Config& config);

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  double alpha_;
};

class ELU : public LayerHandle<ELUImpl> {
 public:
  using LayerHandle<ELUImpl>::LayerHandle;
  ELU(double alpha = 1.0, ActivationOptions options = {})
      : LayerHandle(std::make_shared<ELUImpl>(alpha, std::move(options))) {
    ptr()->name();
  }
};

struct PReLUOptions {
  InitializerArg alpha_initializer = "zeros";
  regularizers::RegularizerPtr alpha_regularizer = nullptr;
  constraints::ConstraintPtr alpha_constraint = nullptr;
  std::vector<int> shared_axes;  // 1-based axes sharing one alpha (e.g. {1, 2} for images)
  std::string name;
  bool trainable = true;
  DType dtype = DType::float32;
  std::optional<Shape> input_shape;
};

class PReLUImpl : public ElementwiseLayer {
 public:
  explicit PReLUImpl(PReLUOptions options = {});
  std::string class_name() const override { return "PReLU"; }
  Config get_config() const override;
  static std::shared_ptr<PReLUImpl> from_config(const Config& config);
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

class PReLU : public LayerHandle<PReLUImpl> {
 public:
  using LayerHandle<PReLUImpl>::LayerHandle;
  PReLU(PReLUOptions options = {}) : LayerHandle(std::make_shared<PReLUImpl>(std::move(options))) { ptr()->name(); }
};

}  // namespace kiln::layers

#pragma once
// Lambda: wraps a C++ function of one tensor as a layer, for raw ops in functional graphs.
//   auto y = L::Lambda([](const kiln::Tensor& t) { return kiln::square(t); })(x);
// The output shape is found by running the function on zeros unless output_shape
// (without the batch axis) is given. Lambda layers are not deserialisable:
// from_config throws, since the function is code, not configuration.
#include <functional>
#include <optional>
#include <string>

#include "kiln/nn/layer.h"

namespace kiln::layers {

struct LambdaOptions {
  std::optional<Shape> output_shape;  // without the batch axis
  std::string name;
  bool trainable = true;
  DType dtype = DType::float32;
  std::optional<Shape> input_shape;
};

class LambdaImpl : public Layer {
 public:
  using Function = std::function<Tensor(const Tensor&)>;
  explicit LambdaImpl(Function fn, LambdaOptions options = {});
  std::string class_name() const override { return "Lambda"; }
  Config get_config() const override;
  static std::shared_ptr<LambdaImpl> from_config(const Config& config);
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  Function fn_;
  LambdaOptions o_;
};

class Lambda : public LayerHandle<LambdaImpl> {
 public:
  using LayerHandle<LambdaImpl>::LayerHandle;
  explicit Lambda(LambdaImpl::Function fn, LambdaOptions options = {})
      : LayerHandle(std::make_shared<LambdaImpl>(std::move(fn), std::move(options))) {
    ptr()->name();
  }
};

}  // namespace kiln::layers

#pragma once
// Lambda: wraps a C++ function of one tensor as a layer, for raw ops in functional graphs.
//   auto y = L::Lambda([](const kiln::Tensor& t) { return kiln::square(t); })(x);
// The output shape is found by running the function on zeros unless output_shape
// (without the batch axis) is given. Lambda layers are not deserialisable:
// from_config throws, since the function is code, not configuration.
#include <functional>
#include <optional>
#include <string>

#include "kiln/core/fields.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of Lambda (Keras's `Lambda` constructor arguments after the function).
struct LambdaOptions {
  std::optional<Shape> output_shape;  ///< The output shape without the batch axis; none: inferred.
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(LambdaOptions, output_shape)
};

/// Wraps a C++ function of one tensor as a layer, for raw ops in functional graphs (Keras's
/// `Lambda`). The output shape is output_shape, or found by running the function on zeros.
/// Not deserialisable: from_config throws, since the function is code. Users create it
/// through the handle `kiln::layers::Lambda(fn, {...})`.
class LambdaImpl : public Layer {
 public:
  using Function = std::function<Tensor(const Tensor&)>;  ///< The wrapped function's type.
  /// `fn` maps the input tensor to the output.
  explicit LambdaImpl(Function fn, LambdaOptions options = {});
  std::string class_name() const override { return "Lambda"; }
  Config get_config() const override;
  /// Always throws: a function cannot be rebuilt from a config; recreate the layer in code.
  static std::shared_ptr<LambdaImpl> from_config(const Config& config);
  using Options = LambdaOptions;  ///< The options struct the constructor takes.
  const LambdaOptions& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(LambdaImpl, fn_)
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  Function fn_;
  LambdaOptions o_;
};

KILN_LAYER_HANDLE(Lambda);

}  // namespace kiln::layers

#pragma once
// InputLayer and kiln::Input(): the entry point of functional models.
//   auto x = kiln::Input({28, 28, 1});             // symbolic (None, 28, 28, 1)
//   auto y = kiln::layers::Dense(10)(kiln::layers::Flatten()(x));
#include <optional>
#include <string>

#include "kiln/nn/layer.h"

namespace kiln {

/// Options of Input() and InputLayer (Keras's keras.Input keywords).
struct InputOptions {
  std::string name;  ///< Layer name; empty picks a unique one ("input_layer").
  DType dtype = DType::float32;  ///< The input's dtype.
  std::optional<int64_t> batch_size;  ///< Fixed batch size; None (unset) by default.
};

/// The layer behind Input() (Keras's InputLayer): it holds a functional model's
/// symbolic input and passes its input through unchanged.
class InputLayerImpl : public Layer {
 public:
  /// shape excludes the batch dimension.
  InputLayerImpl(const Shape& shape, InputOptions options = {});
  std::string class_name() const override { return "InputLayer"; }
  Config get_config() const override;
  /// (batch, ...shape) with batch None unless batch_size was given.
  const Shape& batch_shape() const { return batch_shape_; }
  /// The symbolic tensor this layer produces.
  Tensor symbolic_output();
  Shape compute_output_shape(const Shape& s) override { return s; }

 protected:
  Tensor call(const Tensor& x, bool) override { return x; }

 private:
  Shape batch_shape_;
  std::weak_ptr<TensorImpl> output_;  // weak: the tensor owns the node that owns this layer
};

/// A symbolic input tensor (batch dimension None) for functional models.
Tensor Input(const Shape& shape, InputOptions options = {});

}  // namespace kiln

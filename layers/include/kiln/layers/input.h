#pragma once
// Input: the InputLayer as a layer handle for Sequential lists, also usable as
// the symbolic input tensor of a functional model.
//   kiln::Sequential model({L::Input({28, 28, 1}), L::Flatten(), L::Dense(10)});
//   L::Input in({3});  kiln::Tensor y = L::Dense(2)(in);   // converts to its symbolic tensor
// The batch axis is None unless batch_size is given: (None, 28, 28, 1).
#include "kiln/nn/input_layer.h"
#include "kiln/nn/layer.h"

namespace kiln::layers {

/// The InputLayer as a layer handle (Keras's `Input` / `InputLayer`): an entry of a
/// Sequential list, or the symbolic input tensor of a functional model. The batch axis is
/// None unless batch_size is given, e.g. `kiln::layers::Input({28, 28, 1})` is (None, 28, 28, 1).
class Input : public LayerHandle<InputLayerImpl> {
 public:
  using LayerHandle<InputLayerImpl>::LayerHandle;
  /// shape excludes the batch axis.
  explicit Input(const Shape& shape, InputOptions options = {})
      : LayerHandle(std::make_shared<InputLayerImpl>(shape, std::move(options))) {
    get()->name();
  }
  /// The symbolic tensor (batch_shape, dtype) this input produces.
  Tensor tensor() const { return get()->symbolic_output(); }
  operator Tensor() const { return tensor(); }  ///< Converts to tensor(), for use as a Tensor.
  const Shape& batch_shape() const { return get()->batch_shape(); }  ///< The input's shape with the batch axis.
};

/// Keras also exports the layer class itself.
using InputLayer = Input;

/// Builds an InputLayer from {"batch_shape" | "batch_input_shape", "dtype", "name"}.
std::shared_ptr<InputLayerImpl> input_layer_from_config(const Config& config);

}  // namespace kiln::layers

#pragma once
// Sequential: a plain stack of layers.
//   kiln::Sequential model({L::Input({28, 28, 1}), L::Conv2D(32, 3, {.activation = "relu"}), ...});
//   model.add(L::Dense(10));
// With an Input first, the model is built at once (summary() works before
// fit); otherwise it builds from the first data it sees.
#include <vector>

#include "kiln/nn/input_layer.h"
#include "kiln/training/model.h"

namespace kiln {

/// A plain stack of layers (Keras's keras.Sequential). With an Input first the model
/// is built at once; otherwise it builds from the first data it sees.
class Sequential : public Model {
 public:
  /// A model of `layers`, in order.
  explicit Sequential(std::vector<LayerPtr> layers = {}, LayerOptions options = {});
  std::string class_name() const override { return "Sequential"; }
  /// Appends a layer (Keras's add()).
  void add(LayerPtr layer);
  /// Removes the last layer.
  void pop();
  /// The layers, without the InputLayer (as Keras's model.layers).
  std::vector<LayerPtr> layers() const override;
  Config get_config() const override;
  std::vector<Shape> compute_output_shape(const std::vector<Shape>& input_shapes) override;
  using Layer::compute_output_shape;
  bool takes_list() const override { return false; }
  /// The InputLayer, if the model has one.
  const std::shared_ptr<InputLayerImpl>& input_layer() const { return input_layer_; }

 protected:
  Tensor call(const Tensor& x, bool training) override;
  std::vector<Tensor> call(const std::vector<Tensor>& xs, bool training) override;
  void build(const Shape& input_shape) override;
  std::vector<std::pair<LayerPtr, std::string>> summary_rows() const override;
  bool summary_sequential_like() const override { return true; }

 private:
  friend class Model;
  void build_from(const Shape& batch_shape);
  std::vector<LayerPtr> layers_;
  std::shared_ptr<InputLayerImpl> input_layer_;
  /// Without an InputLayer, the name of the one Keras makes when the model is
  /// first built ("input_layer_1"): the config's first entry.
  std::string built_input_name_;
  std::vector<Shape> output_shapes_;
};

}  // namespace kiln

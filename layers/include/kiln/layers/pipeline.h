#pragma once
// Pipeline: a series of layers applied in order, as a plain layer (Keras's
// keras.layers.Pipeline), the usual container of an augmentation stack.
//   L::Pipeline({L::RandomFlip(), L::RandomRotation(0.1), L::RandomZoom(0.2)})
// Called directly it trains (its `training` defaults to true, as Keras's
// call() signature has it), so the random layers inside augment; inside a model
// it follows the model's call. Masks pass from each layer to the next.
#include <memory>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of Pipeline: only the layer's name (Keras's Pipeline takes no other
/// base-layer argument and writes none in its config).
struct PipelineOptions {
  KILN_LAYER_BASE_OPTIONS
};

/// Applies its layers in order (Keras's `Pipeline`). Weights are the layers'.
/// Users create it through the handle `kiln::layers::Pipeline({layer, ...})`.
class PipelineImpl : public Layer {
 public:
  using Options = PipelineOptions;  ///< The options struct the constructor takes.
  /// `layers` run first to last; none may be null.
  explicit PipelineImpl(std::vector<LayerPtr> layers, PipelineOptions options = {});
  std::string class_name() const override { return "Pipeline"; }
  /// Keras passes float inputs through as they are (no cast to the compute dtype).
  bool converts_inputs() const override { return false; }
  /// {"layers": [each layer serialized], "name"}: Keras's Pipeline config, nothing else.
  Config get_config() const override;
  /// Rebuilds the pipeline from {"layers": [...], "name"}.
  static std::shared_ptr<PipelineImpl> from_config(const Config& config);
  const std::vector<LayerPtr>& pipeline_layers() const { return layers_; }  ///< The layers, in order.
  std::optional<bool> default_training() const override { return true; }
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;
  Tensor compute_mask(const Tensor& x, const Tensor& previous_mask) override;

 protected:
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training) override;
  using Layer::build;
  using Layer::call;

 private:
  std::vector<LayerPtr> layers_;
};

/// The handle: Pipeline({RandomFlip(), RandomRotation(0.1)}).
class Pipeline : public LayerHandle<PipelineImpl> {
 public:
  /// The layers to apply, first to last.
  explicit Pipeline(std::vector<LayerPtr> layers, PipelineOptions options = {})
      : LayerHandle<PipelineImpl>(
            ::kiln::detail::make_named_layer<PipelineImpl>(std::move(layers), std::move(options))) {}
};

}  // namespace kiln::layers

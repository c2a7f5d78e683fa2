#pragma once
// TimeDistributed: applies a layer to every timestep of a sequence.
//   x: (batch, time, ...) -> the layer on (batch·time, ...) -> (batch, time, ...out)
//   A mask on x passes through to the output.
//
//   L::TimeDistributed td(L::Dense(8));            // (b, t, f) -> (b, t, 8)
//   L::TimeDistributed(L::Conv2D(4, 3));           // (b, t, h, w, c) -> (b, t, h', w', 4)
#include <memory>
#include <string>

#include "kiln/core/fields.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of TimeDistributed: only the base-layer arguments.
struct TimeDistributedOptions {
  KILN_LAYER_BASE_OPTIONS
};

/// Applies a layer to every timestep of a sequence (Keras's `TimeDistributed`):
/// x (batch, time, ...) runs through the layer as (batch·time, ...) and comes back as
/// (batch, time, ...out). A mask on x passes through to the output. Users create it
/// through the handle `kiln::layers::TimeDistributed(layer)`, e.g. `TimeDistributed(Dense(8))`.
class TimeDistributedImpl : public Layer {
 public:
  using Options = TimeDistributedOptions;  ///< The options struct the constructor takes.
  /// Wraps `layer`, which sees one timestep (batch·time, ...) at a time.
  TimeDistributedImpl(LayerPtr layer, TimeDistributedOptions options = {});
  std::string class_name() const override { return "TimeDistributed"; }
  Config get_config() const override;
  /// Rebuilds the layer from its config, with the nested "layer".
  static std::shared_ptr<TimeDistributedImpl> from_config(const Config& config);
  const LayerPtr& layer() const { return layer_; }  ///< The wrapped layer.
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;

 protected:
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training) override;
  using Layer::build;
  using Layer::call;

 private:
  LayerPtr layer_;
};

/// The handle: TimeDistributed(Dense(8)).
class TimeDistributed : public LayerHandle<TimeDistributedImpl> {
 public:
  /// Wraps `layer`, e.g. Dense(8).
  explicit TimeDistributed(LayerPtr layer, TimeDistributedOptions options = {})
      : LayerHandle<TimeDistributedImpl>(::kiln::detail::make_named_layer<TimeDistributedImpl>(std::move(layer), std::move(options))) {}
};

}  // namespace kiln::layers

// Pipeline: its layers in order, each called with the pipeline's `training`.
#include "kiln/layers/pipeline.h"

#include <nlohmann/json.hpp>

#include "config_fields.h"
#include "nested_layers.h"

namespace kiln::layers {

using namespace detail;

PipelineImpl::PipelineImpl(std::vector<LayerPtr> layers, PipelineOptions o)
    : Layer(base_options(o)), layers_(std::move(layers)) {
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    if (!layers_[i]) throw ValueError("Pipeline: layer " + std::to_string(i) + " of the list is null");
    // Keras saves a list's layers as a container: "layers/<class>", "layers/<class>_1".
    track_layer(layers_[i], "layers/");
  }
  set_supports_masking(true);
}

void PipelineImpl::build(const Shape& s) {
  Shape in = s;
  for (const auto& l : layers_) {
    l->build_for(in);
    prefix_weight_paths(*l, name());
    in = l->compute_output_shape(in);
  }
}

Shape PipelineImpl::compute_output_shape(const Shape& s) {
  Shape out = s;
  for (const auto& l : layers_) out = l->compute_output_shape(out);
  return out;
}

Tensor PipelineImpl::compute_mask(const Tensor& x, const Tensor& previous_mask) {
  // Each layer's mask is computed on the input it sees; symbolic shapes suffice.
  Tensor mask = previous_mask;
  Tensor h = x;
  for (const auto& l : layers_) {
    mask = l->compute_mask(h, mask);
    h = Tensor::symbolic(l->compute_output_shape(h.shape()), h.dtype());
  }
  return mask;
}

Tensor PipelineImpl::call(const Tensor& x, bool training) {
  Tensor h = x;
  for (const auto& l : layers_) h = (*l)(h, training);
  return h;
}

Config PipelineImpl::get_config() const {
  Config list = Config::array();
  for (const auto& l : layers_) list.push_back(serialize_nested(*l));
  return {{"layers", list}, {"name", name()}};
}

std::shared_ptr<PipelineImpl> PipelineImpl::from_config(const Config& config) {
  if (!config.is_object() || !config.contains("layers") || !config["layers"].is_array())
    throw ValueError("`Pipeline` config must contain a `layers` key mapping to a list of serialized layers. "
                     "Received config with layers=" +
                     (config.is_object() && config.contains("layers") ? config["layers"].dump().substr(0, 200)
                                                                       : std::string("None")) + ".");
  std::vector<LayerPtr> layers;
  for (const auto& e : config["layers"]) layers.push_back(layer_from_config(e));
  PipelineOptions o;
  if (config.contains("name") && config["name"].is_string()) o.name = config["name"].get<std::string>();
  return std::make_shared<PipelineImpl>(std::move(layers), o);
}

KILN_REGISTER_LAYER(PipelineImpl, "Pipeline")

}  // namespace kiln::layers

// InputLayer from its config (Keras 3 "batch_shape" or tf.keras "batch_input_shape").
#include "kiln/layers/input.h"

#include "config_fields.h"

namespace kiln::layers {

using namespace detail;

std::shared_ptr<InputLayerImpl> input_layer_from_config(const Config& config) {
  ConfigReader r("InputLayer", config);
  InputOptions o;
  o.name = r.string("name", "");
  o.dtype = r.dtype();
  Shape batch_shape;
  if (r.has("batch_shape")) batch_shape = shape_from_json(config["batch_shape"], "InputLayer.from_config 'batch_shape'");
  else if (r.has("batch_input_shape"))
    batch_shape = shape_from_json(config["batch_input_shape"], "InputLayer.from_config 'batch_input_shape'");
  else if (r.has("shape")) {
    batch_shape = Shape{None};
    for (auto d : shape_from_json(config["shape"], "InputLayer.from_config 'shape'")) batch_shape.push_back(d);
  } else
    throw ValueError("InputLayer.from_config: expected 'batch_shape' (Keras 3) or 'batch_input_shape' (tf.keras) in " +
                     config.dump());
  if (batch_shape.rank() < 1) throw ValueError("InputLayer.from_config: the batch shape must include the batch axis, got " + config.dump());
  if (auto bs = r.optional_integer("batch_size")) o.batch_size = *bs;
  else if (batch_shape[0] >= 0) o.batch_size = batch_shape[0];
  if (r.boolean("sparse", false)) throw ValueError("InputLayer.from_config: sparse inputs are not supported");
  return std::make_shared<InputLayerImpl>(batch_shape.slice(1), o);
}

KILN_REGISTER_LAYER_FACTORY(InputLayerImpl, input_layer_from_config, "InputLayer")

}  // namespace kiln::layers

#include "kiln/nn/input_layer.h"

#include <nlohmann/json.hpp>

#include "kiln/nn/node.h"

namespace kiln {

InputLayerImpl::InputLayerImpl(const Shape& shape, InputOptions o) : Layer({o.name, true, o.dtype}) {
  batch_shape_.push_back(o.batch_size ? *o.batch_size : None);
  for (auto d : shape) batch_shape_.push_back(d);
  build_for(batch_shape_);
}

Config InputLayerImpl::get_config() const {
  Config c = Config::object();
  Config bs = Config::array();
  for (auto d : batch_shape_.dims()) bs.push_back(d < 0 ? Config(nullptr) : Config(d));
  c["batch_shape"] = bs;
  c["dtype"] = dtype_name(dtype());
  c["sparse"] = false;
  c["name"] = name();
  return c;
}

Tensor InputLayerImpl::symbolic_output() {
  if (auto p = output_.lock()) return Tensor(p);
  Tensor out = Tensor::symbolic(batch_shape_, dtype());
  auto node = std::make_shared<Node>();
  node->layer = shared_from_this();
  node->outputs.push_back(out.impl());
  set_keras_history(out, node, 0);
  add_inbound_node(node);
  output_ = out.impl();
  return out;
}

Tensor Input(const Shape& shape, InputOptions options) {
  auto layer = std::make_shared<InputLayerImpl>(shape, options);
  layer->name();  // named now, as Keras names a layer when it is made ("input_layer", "input_layer_1")
  return layer->symbolic_output();
}

}  // namespace kiln

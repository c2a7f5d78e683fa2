// Model construction: functional graphs (topological order of nodes), calls,
// and structure queries. Training lives in training/, summary in summary.cpp.
#include "kiln/training/model.h"
#include "kiln/training/multi_output_model.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>

#include "kiln/core/error.h"
#include "kiln/nn/input_layer.h"
#include "kiln/nn/node.h"
#include "kiln/nn/operation_layer.h"
#include "kiln/ops/array_ops.h"
#include "core/tensor_impl.h"
#include "training/graph_order.h"
#include "nn/call_context.h"

namespace kiln {

Model::Model(LayerOptions o) : Layer(std::move(o)) {}
Model::Model(const Tensor& input, const Tensor& output, LayerOptions o) : Layer(std::move(o)) {
  init_graph({input}, {output});
}
Model::Model(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs, LayerOptions o)
    : Layer(std::move(o)) {
  init_graph(inputs, outputs);
}
Model::Model(const std::vector<Tensor>& inputs, const Tensor& output, LayerOptions o) : Layer(std::move(o)) {
  init_graph(inputs, {output});
}
Model::Model(const Tensor& input, const std::vector<Tensor>& outputs, LayerOptions o) : Layer(std::move(o)) {
  init_graph({input}, outputs);
}
Model::~Model() = default;

std::string Model::class_name() const {
  if (is_functional()) return "Functional";
  return Layer::class_name();
}

void Model::init_graph(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs) {
  if (inputs.empty() || outputs.empty()) throw ValueError("Model: inputs and outputs must not be empty");
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto* h = keras_history(inputs[i]);
    if (!inputs[i].is_symbolic() || !h || !dynamic_cast<InputLayerImpl*>(h->node->layer.get()))
      throw ValueError("Model: input " + std::to_string(i) +
                       " must be a symbolic tensor created by kiln::Input(), but received " + to_string(inputs[i]));
  }
  for (std::size_t i = 0; i < outputs.size(); ++i)
    if (!outputs[i].is_symbolic() || !keras_history(outputs[i]))
      throw ValueError("Model: output " + std::to_string(i) +
                       " must be a symbolic tensor produced by calling layers on kiln::Input() tensors");
  inputs_ = inputs;
  outputs_ = outputs;
  // Layers in Keras's order: the config, the .h5 layer_names and the .keras
  // weight paths all follow it. Nodes run in the walk's order, inputs first.
  detail::GraphOrder order = detail::keras_graph_order(inputs, outputs);
  std::stable_partition(order.nodes.begin(), order.nodes.end(),
                        [](const std::shared_ptr<Node>& n) { return n->inputs.empty(); });
  nodes_ = std::move(order.nodes);
  graph_layers_ = std::move(order.operations);
  for (const auto& l : graph_layers_)
    if (!dynamic_cast<InputLayerImpl*>(l.get())) track_layer(l);
  // The model is built: its weights exist already.
  std::vector<Shape> shapes;
  for (const auto& t : inputs) shapes.push_back(t.shape());
  build_shapes_ = shapes;
  if (shapes.size() == 1) build_shape_ = shapes[0];
  mark_built();
}

int Model::num_outputs() const { return outputs_.empty() ? 1 : static_cast<int>(outputs_.size()); }

std::vector<std::string> Model::input_names() const {
  std::vector<std::string> n;
  for (const auto& t : inputs_) n.push_back(keras_history(t)->node->layer->name());
  return n;
}
std::vector<std::string> Model::output_names() const {
  std::vector<std::string> n;
  if (outputs_.empty()) {
    n.push_back("output");
    return n;
  }
  for (const auto& t : outputs_) n.push_back(keras_history(t)->node->layer->name());
  return n;
}

std::vector<Tensor> Model::call_outputs(const std::vector<Tensor>& x, bool training) {
  if (!is_functional()) {
    if (x.size() == 1) return {Layer::operator()(x[0], training)};
    return Layer::operator()(x, training);
  }
  return Layer::operator()(x, training);
}

Tensor Model::call(const Tensor& x, bool training) {
  if (!is_functional())
    throw ValueError("Model '" + name() + "' is subclassed but does not override call()");
  auto out = call(std::vector<Tensor>{x}, training);
  if (out.size() != 1)
    throw ValueError("Model '" + name() + "' has " + std::to_string(out.size()) +
                     " outputs, and this call returns one tensor; hold the model as kiln::MultiOutputModel<" +
                     std::to_string(out.size()) + "> (kiln/training/multi_output_model.h), whose call returns them "
                     "all: auto [a, b, ...] = model(x)");
  return out[0];
}

void throw_model_output_count(const Model& model, std::size_t want, std::size_t got) {
  throw ValueError("MultiOutputModel<" + std::to_string(want) + ">: model '" + model.name() + "' has " +
                   std::to_string(got) + " output" + (got == 1 ? "" : "s") + ", not " + std::to_string(want));
}

std::vector<Tensor> Model::call(const std::vector<Tensor>& xs, bool training) {
  if (!is_functional()) {
    if (xs.size() != 1)
      throw ValueError("Model '" + name() + "' takes one input but was called with " + std::to_string(xs.size()));
    return {call(xs[0], training)};
  }
  if (xs.size() != inputs_.size())
    throw ValueError("Layer \"" + name() + "\" expects " + std::to_string(inputs_.size()) +
                     " input(s), but it received " + std::to_string(xs.size()) + " input tensors");
  std::unordered_map<uint64_t, Tensor> values;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const Shape& want = inputs_[i].shape();
    // Keras's Functional._adjust_input_rank: one trailing axis of size 1 more or less than
    // the Input is squeezed or added, so (batch,) strings feed Input(shape=(1,)).
    Tensor x = xs[i];
    if (!x.is_symbolic() && x.rank() == want.rank() + 1 && x.shape().dims().back() == 1) x = squeeze(x, {-1});
    else if (!x.is_symbolic() && x.rank() + 1 == want.rank() && want.dims().back() == 1) x = expand_dims(x, -1);
    const Shape& got = x.shape();
    bool ok = want.rank() == got.rank();
    for (int64_t d = 0; ok && d < want.rank(); ++d)
      if (want.dims()[d] >= 0 && want.dims()[d] != got.dims()[d]) ok = false;
    if (!ok)
      throw ShapeError("Input " + std::to_string(i) + " of layer '" + name() +
                       "' is incompatible with the layer: expected shape=" + want.to_string() +
                       ", found shape=" + got.to_string());
    Tensor v = x;
    if (is_floating(inputs_[i].dtype()) && v.dtype() != inputs_[i].dtype() && !v.is_symbolic()) v = v.cast(inputs_[i].dtype());
    values[inputs_[i].id()] = v;
  }
  // Captured before the layers run: each of them sets the context's value in turn.
  const std::optional<bool> own = detail::own_training(training);
  for (const auto& n : nodes_) {
    if (n->inputs.empty()) continue;
    auto value_of = [&](const Tensor& in) {
      auto it = values.find(in.id());
      if (it == values.end()) throw ValueError("Model '" + name() + "': graph input missing while running layer '" + n->layer->name() + "'");
      return it->second;
    };
    std::vector<Tensor> args;
    for (const auto& in : n->inputs) args.push_back(value_of(in));
    std::vector<Tensor> outs;
    if (n->kwargs.empty()) {
      const std::optional<bool> t = detail::training_for_sublayer(own, std::nullopt, *n->layer);
      outs = n->list_call || n->layer->returns_list() ? (*n->layer)(args, t)
                                                       : std::vector<Tensor>{(*n->layer)(args[0], t)};
    } else {
      // The model's training argument wins over the node's, which wins over the
      // layer's default, as in Keras's functional call.
      std::optional<bool> recorded;
      CallKwargs kw;
      for (const auto& [key, v] : n->kwargs.items()) {
        if (key == "training") {
          if (v.json == "true" || v.json == "false") recorded = v.json == "true";
          continue;
        }
        CallArg a = v;
        for (auto& t : a.tensors) t = value_of(t);
        kw.set(key, a);
      }
      outs = n->layer->call_with_kwargs(args, n->list_call, kw, detail::training_for_sublayer(own, recorded, *n->layer));
    }
    auto ids = n->output_tensors();
    for (std::size_t k = 0; k < ids.size() && k < outs.size(); ++k)
      if (ids[k].defined()) values[ids[k].id()] = outs[k];
  }
  std::vector<Tensor> result;
  for (const auto& o : outputs_) result.push_back(values.at(o.id()));
  return result;
}

void Model::build(const Shape& input_shape) {
  // Functional models are built at construction; subclassed models build their
  // sublayers lazily on the first call (load_model calls them on zeros).
  (void)input_shape;
}

std::vector<Shape> Model::compute_output_shape(const std::vector<Shape>& input_shapes) {
  if (is_functional()) {
    std::vector<Shape> out;
    for (const auto& o : outputs_) {
      Shape s = o.shape();
      if (!input_shapes.empty() && input_shapes[0].rank() > 0 && s.rank() > 0) s.dims()[0] = input_shapes[0].dims()[0];
      out.push_back(s);
    }
    return out;
  }
  return Layer::compute_output_shape(input_shapes);
}

std::vector<LayerPtr> Model::layers() const {
  if (!is_functional()) return sublayers();
  // keras.ops nodes are not layers in Keras's model.layers, so they take no
  // place in the paths and the layer lists of saved weights.
  std::vector<LayerPtr> out;
  for (const auto& l : graph_layers_)
    if (!dynamic_cast<const OperationLayer*>(l.get())) out.push_back(l);
  return out;
}

LayerPtr Model::get_layer(const std::string& n) const {
  for (const auto& l : layers())
    if (l->name() == n) return l;
  std::string known;
  for (const auto& l : layers()) known += (known.empty() ? "" : ", ") + l->name();
  throw ValueError("No such layer: " + n + ". Existing layers are: [" + known + "]");
}
LayerPtr Model::get_layer(int index) const {
  auto ls = layers();
  if (index < 0 || index >= static_cast<int>(ls.size()))
    throw IndexError("get_layer: index " + std::to_string(index) + " is out of range; the model has " +
                     std::to_string(ls.size()) + " layers");
  return ls[index];
}

void Model::to(Device d) {
  Layer::to(d);
  for (const auto& l : graph_layers_) l->to(d);
  if (optimizer_) optimizer_->to(d);
  // Metrics kept on the GPU follow the model; to the CPU they stay there.
  if (metrics_on_device_) {
    for (const auto& m : metrics()) m->to(d);
    metrics_on_device_ = !d.is_cpu();
  }
}

}  // namespace kiln

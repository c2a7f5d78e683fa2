// A layer called on symbolic tensors (the functional API): the call records a
// node of the functional graph and answers with symbolic outputs.
#include "kiln/nn/layer.h"

#include "kiln/core/error.h"
#include "kiln/nn/node.h"
#include "core/tensor_impl.h"

namespace kiln {

namespace {
/// Keywords other than the ones every layer takes (training, mask).
bool has_layer_keywords(const CallKwargs& kwargs) {
  for (const auto& [k, v] : kwargs.items())
    if (k != "training" && k != "mask") return true;
  return false;
}
}  // namespace

std::vector<Tensor> Layer::call_symbolic(const std::vector<Tensor>& xs, bool list_call, bool, const CallKwargs& kwargs) {
  std::shared_ptr<Layer> self;
  try {
    self = shared_from_this();
  } catch (const std::bad_weak_ptr&) {
    throw ValueError("Layer '" + name() +
                     "' was called on a symbolic tensor but is not owned by a shared pointer; create it with "
                     "kiln::make_layer<T>(...) or a layer handle such as kiln::layers::Dense(...)");
  }
  check_input_spec(xs);
  auto node = std::make_shared<Node>();
  node->layer = self;
  node->inputs = xs;
  node->list_call = list_call;
  node->kwargs = kwargs;
  std::vector<Tensor> outs;
  if (has_layer_keywords(kwargs) || infers_outputs_by_running()) {
    outs = symbolic_outputs_of_kwargs_call(xs, list_call, kwargs);
  } else {
    std::vector<Shape> in_shapes;
    for (const auto& x : xs) in_shapes.push_back(x.shape());
    std::vector<Shape> out_shapes;
    try {
      if (!built_) {
        if (list_call || takes_list()) build_for(in_shapes);
        else build_for(in_shapes[0]);
      }
      // A layer with several outputs (an RNN's return_state) names each one, even for one input.
      out_shapes = (list_call || takes_list() || returns_list())
                       ? compute_output_shape(in_shapes)
                       : std::vector<Shape>{compute_output_shape(in_shapes[0])};
    } catch (const ShapeError& e) {
      throw;
    } catch (const ValueError& e) {
      std::string shapes;
      for (std::size_t i = 0; i < in_shapes.size(); ++i) shapes += (i ? ", " : "") + in_shapes[i].to_string();
      throw ShapeError("Layer '" + name() + "' (" + class_name() + ") cannot be called on inputs with shapes " + shapes +
                       ": " + e.what());
    }
    // Float inputs are cast to the compute dtype, and outputs keep it; a layer
    // with float weights fed integers (Embedding on token ids) computes in its
    // float compute dtype too.
    DType out_dtype = xs[0].dtype();
    const bool float_compute = is_floating(compute_dtype());
    if (is_floating(out_dtype) && converts_inputs() && float_compute)
      out_dtype = compute_dtype();
    else if (!is_floating(out_dtype) && !variables_.empty() && is_floating(variables_[0].dtype()))
      out_dtype = float_compute ? compute_dtype() : variables_[0].dtype();
    for (const auto& s : out_shapes) outs.push_back(Tensor::symbolic(s, out_dtype));
  }
  for (std::size_t i = 0; i < outs.size(); ++i) {
    set_keras_history(outs[i], node, static_cast<int>(i));
    node->outputs.push_back(outs[i].impl());
  }
  inbound_nodes_.push_back(node);
  return outs;
}

}  // namespace kiln

// Node and the Keras history of symbolic tensors (kiln/nn/node.h).
#include "kiln/nn/node.h"

#include "core/tensor_impl.h"

namespace kiln {

std::vector<Tensor> Node::output_tensors() const {
  std::vector<Tensor> out;
  for (const auto& w : outputs) {
    auto p = w.lock();
    out.push_back(p ? Tensor(p) : Tensor());
  }
  return out;
}
const KerasHistory* keras_history(const Tensor& t) {
  if (!t.defined()) return nullptr;
  return t.impl()->keras_history.get();
}
void set_keras_history(const Tensor& t, std::shared_ptr<Node> node, int index) {
  auto h = std::make_shared<KerasHistory>();
  h->node = std::move(node);
  h->index = index;
  t.impl()->keras_history = h;
}

}  // namespace kiln

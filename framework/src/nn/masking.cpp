// The mask lives on the tensor's shared state, so every handle sees it, as
// Keras's `_keras_mask` attribute on a tensor object.
#include "kiln/nn/masking.h"

#include "core/tensor_impl.h"
#include "kiln/core/error.h"

namespace kiln {

Tensor get_keras_mask(const Tensor& t) {
  if (!t.defined() || !t.impl()->keras_mask) return Tensor();
  return Tensor(t.impl()->keras_mask);
}

void set_keras_mask(const Tensor& t, const Tensor& mask) {
  if (!t.defined()) throw ValueError("set_keras_mask: the tensor is undefined");
  t.impl()->keras_mask = mask.defined() ? mask.impl() : nullptr;
}

}  // namespace kiln

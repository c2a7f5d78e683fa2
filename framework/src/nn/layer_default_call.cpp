// The default call()s. A subclass may override the single-tensor call(), the
// list call(), or both, and is reached through either: a layer that overrides
// only the list call() gets a single tensor as a one-element list, and one that
// overrides only the single call() gets a one-element list's tensor. A layer
// that overrides neither is the identity.
#include <string>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/nn/layer.h"

namespace kiln {
namespace {

// The layer whose default single call() is forwarding to its list call() on
// this thread; the default list call() then knows not to forward back.
thread_local const Layer* forwarding_single_call = nullptr;

class ForwardingSingleCall {
 public:
  explicit ForwardingSingleCall(const Layer& l) : saved_(forwarding_single_call) { forwarding_single_call = &l; }
  ~ForwardingSingleCall() { forwarding_single_call = saved_; }
  ForwardingSingleCall(const ForwardingSingleCall&) = delete;
  ForwardingSingleCall& operator=(const ForwardingSingleCall&) = delete;

 private:
  const Layer* saved_;
};

}  // namespace

Tensor Layer::call(const Tensor& x, bool training) {
  if (forwarding_single_call == this) return x;
  std::vector<Tensor> ys;
  {
    ForwardingSingleCall forwarding(*this);
    ys = call(std::vector<Tensor>{x}, training);
  }
  if (ys.size() != 1)
    throw ValueError("Layer '" + name() + "' (" + class_name() + ") returned " + std::to_string(ys.size()) +
                     " outputs for one input, but was called for a single tensor. A layer whose call() "
                     "answers with several tensors overrides returns_list() to return true; its callers "
                     "then receive all of them (kiln::unpack<N> splits them).");
  return ys[0];
}

std::vector<Tensor> Layer::call(const std::vector<Tensor>& xs, bool training) {
  if (xs.size() != 1)
    throw ValueError("Layer '" + name() + "' (" + class_name() + ") takes a single input, but was called with " +
                     std::to_string(xs.size()) + " inputs");
  if (forwarding_single_call == this) return {xs[0]};
  return {call(xs[0], training)};
}

}  // namespace kiln

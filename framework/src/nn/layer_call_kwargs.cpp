// Layer calls with Keras's call keywords (kiln/nn/call_kwargs.h): eager calls
// run call_kwargs(); symbolic calls record the keywords on the graph node,
// and take the outputs' shapes from two runs on zeros, since a keyword can
// change them (return_attention_scores adds an output).
#include <nlohmann/json.hpp>

#include "autodiff/autodiff.h"
#include "kiln/core/error.h"
#include "kiln/nn/layer.h"
#include "nn/layer_autocast.h"
#include "kiln/nn/masking.h"
#include "kiln/nn/node.h"
#include "core/op_log.h"
#include "core/placement_scope.h"
#include "nn/call_context.h"
#include "nn/layer_owner.h"

namespace kiln {

Tensor Layer::operator()(const Tensor& x, const CallOptions& options) {
  return call_with_kwargs({x}, false, options.to_kwargs()).at(0);
}

std::vector<Tensor> Layer::operator()(const std::vector<Tensor>& xs, const CallOptions& options) {
  return call_with_kwargs(xs, true, options.to_kwargs());
}

std::vector<Tensor> Layer::call_with_kwargs(const std::vector<Tensor>& xs, bool list_call, const CallKwargs& kwargs,
                                            std::optional<bool> training) {
  if (oplog::logging()) {
    auto rerun = [self = detail::kept_for_rerun(this)](const std::vector<Tensor>& a, bool list, const CallKwargs& k,
                                                       std::optional<bool> t) {
      return self->call_with_kwargs(a, list, k, t);
    };
    return oplog::run_logged(name().c_str(), rerun, xs, list_call, kwargs, training);
  }
  if (xs.empty()) throw ValueError("Layer '" + name() + "' was called with an empty list of inputs");
  bool any_sym = false, all_sym = true;
  auto note = [&](const Tensor& t) {
    if (!t.defined()) throw ValueError("Layer '" + name() + "' was called on an undefined tensor");
    any_sym = any_sym || t.is_symbolic();
    all_sym = all_sym && t.is_symbolic();
  };
  for (const auto& x : xs) note(x);
  for (const auto& t : kwargs.tensors()) note(t);
  if (any_sym && !all_sym)
    throw ValueError("Layer '" + name() + "' was called on a mix of symbolic and concrete tensors");
  if (any_sym) return call_symbolic(xs, list_call, training.value_or(false), kwargs);

  CallKwargs rest = kwargs;
  if (const CallArg* t = kwargs.find("training")) {
    if (t->is_tensor() || (t->json != "true" && t->json != "false" && t->json != "null"))
      throw ValueError("Layer '" + name() + "' (" + class_name() + "): the call keyword training must be a bool, but "
                       "received " + (t->is_tensor() ? std::string("a tensor") : t->json));
    if (t->json != "null") training = kwargs.flag("training", false);
    rest.erase("training");
  }
  Tensor mask = get_keras_mask(xs[0]);
  if (const CallArg* m = kwargs.find("mask")) {
    if (m->is_tensor() && (m->tensor_list || m->tensors.size() != 1))
      throw ValueError("Layer '" + name() + "' (" + class_name() + "): the call keyword mask must be one tensor, but "
                       "received a list of " + std::to_string(m->tensors.size()));
    if (m->is_tensor()) mask = m->tensors[0];
    else if (m->json != "null")
      throw ValueError("Layer '" + name() + "' (" + class_name() + "): the call keyword mask must be a tensor or None, "
                       "but received " + m->json);
    rest.erase("mask");
  }
  detail::CallContextScope context(*this, training);
  detail::OwnerScope owner(*this);
  return run_with_kwargs(xs, list_call, rest, mask, context.training());
}

std::vector<Tensor> Layer::run_with_kwargs(const std::vector<Tensor>& given, bool list_call, const CallKwargs& rest,
                                           const Tensor& mask, bool training) {
  const std::vector<Tensor> xs = detail::convert_inputs(*this, given);
  // Keras's Layer.__call__ casts float tensors among the keywords too (initial states, keys).
  CallKwargs kwargs;
  for (const auto& [key, arg] : rest.items()) {
    CallArg converted = arg;
    if (converted.is_tensor()) converted.tensors = detail::convert_inputs(*this, arg.tensors);
    kwargs.set(key, std::move(converted));
  }
  check_input_spec(xs);
  maybe_build(xs, list_call);
  call_losses_.clear();
  const bool list = list_call || takes_list() || returns_list();
  // Tensors made inside call() (zero states, padding, index ranges) go beside its inputs.
  PlacementScope on_input_device(xs[0].device());
  detail::LayerAutocast autocast(*this);
  std::vector<Tensor> ys;
  try {
    if (!kwargs.empty()) ys = call_kwargs(xs, kwargs, mask, training);
    else if (mask.defined()) ys = list ? call_masked(xs, mask, training) : std::vector<Tensor>{call_masked(xs[0], mask, training)};
    else ys = list ? call(xs, training) : std::vector<Tensor>{call(xs.at(0), training)};
  } catch (const Error&) {
    detail::rethrow_with_call_context(*this);
  }
  attach_output_mask(xs, ys, mask);
  if (activity_regularizer)
    for (const auto& y : ys) add_activity_loss(y);
  return ys;
}

std::vector<Tensor> Layer::call_kwargs(const std::vector<Tensor>&, const CallKwargs& kwargs, const Tensor&, bool) {
  const auto& [key, value] = kwargs.items().at(0);
  throw ValueError("Layer '" + name() + "' (" + class_name() + ") does not take the call keyword argument '" + key +
                   "' (received " + (value.is_tensor() ? std::string("a tensor") : value.json.substr(0, 120)) + ")");
}

std::vector<Tensor> Layer::symbolic_outputs_of_kwargs_call(const std::vector<Tensor>& xs, bool list_call,
                                                           const CallKwargs& kwargs) {
  // Unknown dimensions become 1, then 2: an output dimension that follows them is unknown too.
  auto run = [&](int64_t fill) {
    auto dummy = [&](const Tensor& t) {
      Shape s = t.shape();
      for (auto& d : s.dims())
        if (d < 0) d = fill;
      return zeros(s, t.dtype());
    };
    std::vector<Tensor> dx;
    for (const auto& x : xs) dx.push_back(dummy(x));
    CallKwargs dk;
    for (const auto& [k, v] : kwargs.items()) {
      CallArg a = v;
      for (auto& t : a.tensors) t = dummy(t);
      dk.set(k, a);
    }
    autodiff::Pause pause;
    return call_with_kwargs(dx, list_call, dk, false);
  };
  std::vector<Tensor> a, b;
  try {
    a = run(1);
    b = run(2);
  } catch (const ValueError& e) {
    std::string shapes;
    for (std::size_t i = 0; i < xs.size(); ++i) shapes += (i ? ", " : "") + xs[i].shape().to_string();
    throw ShapeError("Layer '" + name() + "' (" + class_name() + ") cannot be called on inputs with shapes " + shapes +
                     " and its call keywords: " + e.what());
  }
  std::vector<Tensor> outs;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!a[i].defined())
      throw ValueError("Layer '" + name() + "' (" + class_name() + "): output " + std::to_string(i) +
                       " of a call with keywords is undefined");
    Shape s = a[i].shape();
    for (int64_t d = 0; d < s.rank(); ++d)
      if (i >= b.size() || b[i].shape().rank() != s.rank() || b[i].shape()[d] != s[d]) s.dims()[d] = None;
    outs.push_back(Tensor::symbolic(s, a[i].dtype()));
  }
  return outs;
}

}  // namespace kiln

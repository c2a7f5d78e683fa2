// Layer base: naming, lazy build, input-spec checks, weight registration,
// losses and concrete calls (symbolic ones are in layer_call_symbolic.cpp).
#include "kiln/nn/layer.h"

#include <cxxabi.h>
#include <algorithm>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <typeinfo>

#include "autodiff/autodiff.h"
#include "core/file_load_scope.h"
#include "core/op_log.h"
#include "core/tracing.h"
#include "core/placement_scope.h"
#include "nn/call_context.h"
#include "nn/layer_autocast.h"
#include "nn/layer_owner.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/core/error.h"
#include "kiln/nn/masking.h"
#include "kiln/nn/node.h"
#include "kiln/core/registry.h"
#include "core/tensor_impl.h"

namespace kiln {

// ---- Layer ----
Layer::Layer(LayerOptions o)
    : name_(o.name),
      trainable_(o.trainable),
      autocast_(o.autocast),
      policy_(o.dtype),
      serial_(detail::next_layer_serial()) {}
Layer::~Layer() = default;

std::string Layer::class_name() const {
  int status = 0;
  char* dem = abi::__cxa_demangle(typeid(*this).name(), nullptr, nullptr, &status);
  std::string n = status == 0 && dem ? dem : typeid(*this).name();
  std::free(dem);
  auto pos = n.rfind("::");
  if (pos != std::string::npos) n = n.substr(pos + 2);
  if (n.size() > 4 && n.compare(n.size() - 4, 4, "Impl") == 0) n = n.substr(0, n.size() - 4);
  return n;
}

const std::string& Layer::name() const {
  if (name_.empty()) const_cast<Layer*>(this)->name_ = unique_name(to_snake_case(class_name()));
  return name_;
}

void Layer::set_trainable(bool t) {
  trainable_ = t;
  for (std::size_t i = 0; i < variables_.size(); ++i) variables_[i].set_trainable(t && var_trainable_[i]);
  for (auto& s : sublayers_) s->set_trainable(t);
}

namespace {
template <class F>
void collect_variables(const Layer& l, std::vector<Variable>& out, std::set<const void*>& seen, F pred) {
  for (const auto& v : l.own_variables())
    if (pred(v) && seen.insert(v.impl().get()).second) out.push_back(v);
  for (const auto& s : l.sublayers()) collect_variables(*s, out, seen, pred);
}
}  // namespace

std::vector<Variable> Layer::trainable_variables() const {
  std::vector<Variable> out;
  std::set<const void*> seen;
  collect_variables(*this, out, seen, [](const Variable& v) { return v.trainable(); });
  return out;
}
std::vector<Variable> Layer::non_trainable_variables() const {
  std::vector<Variable> out;
  std::set<const void*> seen;
  collect_variables(*this, out, seen, [](const Variable& v) { return !v.trainable(); });
  return out;
}
std::vector<Variable> Layer::weights() const {
  auto t = trainable_variables();
  auto n = non_trainable_variables();
  t.insert(t.end(), n.begin(), n.end());
  return t;
}
int64_t Layer::count_params() const {
  int64_t n = 0;
  for (const auto& v : weights()) n += v.shape().num_elements();
  return n;
}

std::vector<Tensor> Layer::losses() const {
  std::vector<Tensor> out;
  std::vector<const Layer*> seen;
  collect_losses(out, seen);
  return out;
}

void Layer::collect_losses(std::vector<Tensor>& out, std::vector<const Layer*>& seen) const {
  if (std::find(seen.begin(), seen.end(), this) != seen.end()) return;
  seen.push_back(this);
  // Weight penalties are recomputed from the current values, so inside a tape
  // they are differentiable.
  for (std::size_t i = 0; i < variables_.size(); ++i)
    if (var_regularizers_[i]) out.push_back((*var_regularizers_[i])(variables_[i].value()));
  out.insert(out.end(), call_losses_.begin(), call_losses_.end());
  for (const auto& s : sublayers_) s->collect_losses(out, seen);
}

void Layer::add_loss(const Tensor& loss) { call_losses_.push_back(loss); }

std::vector<std::shared_ptr<Node>> Layer::inbound_nodes() const {
  std::vector<std::shared_ptr<Node>> out;
  for (const auto& w : inbound_nodes_)
    if (auto p = w.lock()) out.push_back(p);
  return out;
}

std::vector<Tensor> Layer::get_weights() const {
  std::vector<Tensor> out;
  for (const auto& v : weights()) out.push_back(v.read_value_untracked().to(Device::cpu()).clone());
  return out;
}

void Layer::set_weights(const std::vector<Tensor>& ws) {
  auto vars = weights();
  if (ws.size() != vars.size())
    throw ValueError("Layer '" + name() + "' (" + class_name() + ") expects " + std::to_string(vars.size()) +
                     " weights, but set_weights() received " + std::to_string(ws.size()));
  for (std::size_t i = 0; i < ws.size(); ++i) {
    if (!(ws[i].shape() == vars[i].shape()))
      throw ShapeError("Layer '" + name() + "': weight " + std::to_string(i) + " ('" + vars[i].path() + "') has shape " +
                       vars[i].shape().to_string() + ", but set_weights() received shape " + ws[i].shape().to_string());
  }
  for (std::size_t i = 0; i < ws.size(); ++i) vars[i].assign(ws[i].to(vars[i].device()));
}

Config Layer::base_config() const {
  Config c = Config::object();
  c["name"] = name();
  c["trainable"] = trainable_;
  c["dtype"] = policy_.name();
  return c;
}
Config Layer::get_config() const { return base_config(); }

Variable Layer::add_weight(const std::string& wname, const Shape& shape, WeightOptions o) {
  DType dt = o.dtype.value_or(dtype());
  try {  // a shape from a downloaded config may overflow or be huge: say which layer and weight
    detail::charge_load_weight(shape.num_elements(), dtype_size(dt));
  } catch (const ValueError& e) {
    throw ValueError("Layer '" + name() + "' (" + class_name() + "): cannot create weight '" + wname + "' of shape " +
                     shape.to_string() + ": " + e.what());
  }
  const auto* load = detail::FileLoadScope::current();
  Tensor init = load && load->weights_follow ? zeros(shape, dt) : o.initializer.resolve()->operator()(shape, dt);
  VariableOptions vo;
  vo.name = wname;
  vo.trainable = o.trainable && trainable_;
  vo.autocast = o.autocast;
  if (o.constraint) {
    auto c = o.constraint;
    vo.constraint = [c](const Tensor& w) { return (*c)(w); };
  }
  Variable v(init, vo);
  if (!(device_ == Device::cpu())) v.move_to(device_);
  v.set_path(name() + "/" + wname);
  variables_.push_back(v);
  var_trainable_.push_back(o.trainable);
  var_regularizers_.push_back(o.regularizer);
  return v;
}

void Layer::track_layer(std::shared_ptr<Layer> layer) {
  if (!layer) throw ValueError("Layer '" + name() + "': cannot track a null sublayer");
  for (const auto& s : sublayers_)
    if (s == layer) return;
  sublayers_.push_back(std::move(layer));
}

void Layer::remove_weight(const Variable& v) {
  for (std::size_t i = 0; i < variables_.size(); ++i)
    if (variables_[i].same_as(v)) {
      variables_.erase(variables_.begin() + static_cast<std::ptrdiff_t>(i));
      var_trainable_.erase(var_trainable_.begin() + static_cast<std::ptrdiff_t>(i));
      var_regularizers_.erase(var_regularizers_.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
  throw ValueError("Layer '" + name() + "': cannot remove weight '" + v.name() + "', which the layer does not own");
}

void Layer::track_variable(const Variable& v) {
  for (const auto& own : variables_)
    if (own.same_as(v)) return;
  variables_.push_back(v);
  var_trainable_.push_back(v.trainable());
  var_regularizers_.push_back(nullptr);  // its penalty, if any, is its owner's
}

void Layer::build(const Shape&) {}
void Layer::build(const std::vector<Shape>& shapes) {
  if (shapes.size() == 1) build(shapes[0]);
}
void Layer::build_for(const Shape& s) {
  if (built_) return;
  detail::OwnerScope owner(*this);
  build_shape_ = s;
  build(s);
  mark_built();
}
void Layer::build_for(const std::vector<Shape>& s) {
  if (built_) return;
  detail::OwnerScope owner(*this);
  build_shapes_ = s;
  if (s.size() == 1 && !takes_list()) build_shape_ = s[0];
  build(s);
  mark_built();
}

void Layer::mark_built() {
  built_ = true;
  auto fs = std::move(after_build_);
  after_build_.clear();
  for (auto& f : fs) f();
}

void Layer::call_after_build(std::function<void()> f) {
  if (built_) f();
  else after_build_.push_back(std::move(f));
}

void Layer::maybe_build(const std::vector<Tensor>& xs, bool list_call) {
  if (built_) return;
  if (list_call || takes_list()) {
    std::vector<Shape> shapes;
    for (const auto& x : xs) shapes.push_back(x.shape());
    build_for(shapes);
  } else {
    build_for(xs[0].shape());
  }
}

Tensor Layer::operator()(const Tensor& x, std::optional<bool> explicit_training) {
  if (oplog::logging())
    return oplog::run_logged(name().c_str(), [l = detail::kept_for_rerun(this)](const Tensor& a, std::optional<bool> t) {
      return (*l)(a, t);
    }, x, explicit_training);
  if (!x.defined()) throw ValueError("Layer '" + name() + "' was called on an undefined tensor");
  if (x.is_symbolic()) return call_symbolic({x}, false, explicit_training.value_or(false))[0];
  detail::CallContextScope context(*this, explicit_training);
  detail::OwnerScope owner(*this);
  const bool training = context.training();
  const Tensor mask = get_keras_mask(x);
  const Tensor in = detail::convert_inputs(*this, {x})[0];
  check_input_spec({in});
  maybe_build({in}, false);
  call_losses_.clear();
  PlacementScope on_input_device(x.device());
  tracing::LayerScope in_layer(name(), detail::describe_layer_for_trace, this);
  detail::LayerAutocast autocast(*this);
  Tensor y;
  try {
    y = mask.defined() ? call_masked(in, mask, training) : call(in, training);
  } catch (const Error&) {
    detail::rethrow_with_call_context(*this);
  }
  attach_output_mask(x, {y}, mask);
  if (activity_regularizer) add_activity_loss(y);
  return y;
}

std::vector<Tensor> Layer::operator()(const std::vector<Tensor>& given, std::optional<bool> explicit_training) {
  if (oplog::logging())
    return oplog::run_logged(name().c_str(), [l = detail::kept_for_rerun(this)](const std::vector<Tensor>& a,
                                                                                std::optional<bool> t) {
      return (*l)(a, t);
    }, given, explicit_training);
  if (given.empty()) throw ValueError("Layer '" + name() + "' was called with an empty list of inputs");
  bool any_sym = false, all_sym = true;
  for (const auto& x : given) {
    if (!x.defined()) throw ValueError("Layer '" + name() + "' was called on an undefined tensor");
    any_sym = any_sym || x.is_symbolic();
    all_sym = all_sym && x.is_symbolic();
  }
  if (any_sym && !all_sym)
    throw ValueError("Layer '" + name() + "' was called on a mix of symbolic and concrete tensors");
  if (any_sym) return call_symbolic(given, true, explicit_training.value_or(false));
  detail::CallContextScope context(*this, explicit_training);
  detail::OwnerScope owner(*this);
  const bool training = context.training();
  const Tensor mask = get_keras_mask(given[0]);
  const std::vector<Tensor> xs = detail::convert_inputs(*this, given);
  check_input_spec(xs);
  maybe_build(xs, true);
  call_losses_.clear();
  // Several inputs always reach the list call(), so a two-input layer needs no takes_list().
  const bool list = takes_list() || returns_list() || xs.size() > 1;
  PlacementScope on_input_device(xs[0].device());
  tracing::LayerScope in_layer(name(), detail::describe_layer_for_trace, this);
  detail::LayerAutocast autocast(*this);
  std::vector<Tensor> ys;
  try {
    if (mask.defined()) ys = list ? call_masked(xs, mask, training) : std::vector<Tensor>{call_masked(xs[0], mask, training)};
    else ys = list ? call(xs, training) : std::vector<Tensor>{call(xs.at(0), training)};
  } catch (const Error&) {
    detail::rethrow_with_call_context(*this);
  }
  attach_output_mask(xs, ys, mask);
  if (activity_regularizer)
    for (const auto& y : ys) add_activity_loss(y);
  return ys;
}

void Layer::add_activity_loss(const Tensor& y) {
  Tensor loss = (*activity_regularizer)(y);
  // Keras divides by the batch size so the penalty's strength does not depend
  // on it (divide_no_nan: an empty batch adds 0).
  if (y.rank() > 0) {
    const double batch = static_cast<double>(y.shape()[0]);
    loss = batch > 0 ? loss / batch : loss * 0.0;
  }
  add_loss(loss);
}

Shape Layer::compute_output_shape(const Shape& input_shape) {
  return compute_output_shape(std::vector<Shape>{input_shape}).at(0);
}

std::vector<Shape> Layer::compute_output_shape(const std::vector<Shape>& input_shapes) {
  // Default: run call() on zeros with unknown dims set to 1, without recording.
  std::vector<Tensor> dummies;
  std::vector<bool> batch_none;
  for (const auto& s : input_shapes) {
    Shape c = s;
    batch_none.push_back(s.rank() > 0 && s.dims()[0] < 0);
    for (auto& d : c.dims())
      if (d < 0) d = 1;
    dummies.push_back(zeros(c, compute_dtype()));
  }
  autodiff::Pause pause;
  detail::OwnerScope owner(*this);
  std::vector<Tensor> outs;
  const bool list = takes_list() || input_shapes.size() > 1;
  maybe_build(dummies, list);
  try {
    outs = list ? call(dummies, false) : std::vector<Tensor>{call(dummies[0], false)};
  } catch (const Error&) {
    detail::rethrow_with_call_context(*this);  // the shapes are those of a call, so the error reads as one
  }
  std::vector<Shape> shapes;
  for (const auto& o : outs) {
    Shape s = o.shape();
    if (!batch_none.empty() && batch_none[0] && s.rank() > 0) s.dims()[0] = None;
    shapes.push_back(s);
  }
  return shapes;
}

Tensor Layer::output() const {
  auto nodes = inbound_nodes();
  if (nodes.empty())
    throw ValueError("Layer '" + name() + "' has never been called on a symbolic input, so it has no defined output");
  auto outs = nodes[0]->output_tensors();
  if (outs.empty() || !outs[0].defined()) throw ValueError("Layer '" + name() + "': its output tensor no longer exists");
  return outs[0];
}
Tensor Layer::input() const {
  auto nodes = inbound_nodes();
  if (nodes.empty() || nodes[0]->inputs.empty())
    throw ValueError("Layer '" + name() + "' has never been called on a symbolic input, so it has no defined input");
  return nodes[0]->inputs[0];
}

void Layer::to(Device d) {
  device_ = d;
  for (auto& v : variables_) v.move_to(d);
  for (auto& s : sublayers_) s->to(d);
}

}  // namespace kiln

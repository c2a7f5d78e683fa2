// Bidirectional: a forward copy and a backward copy of one recurrent layer,
// made from its config as Keras 3 does (names "forward_<name>", "backward_<name>").
#include "kiln/layers/bidirectional.h"

#include <nlohmann/json.hpp>

#include "config_fields.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "nested_layers.h"

namespace kiln::layers {

using namespace detail;

namespace {
std::string without_prefix(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0 ? s.substr(prefix.size()) : s;
}

/// A fresh layer from `layer`'s config, renamed (and with go_backwards set when asked).
std::shared_ptr<RNNImpl> copy_of(const RNNImpl& layer, const std::string& prefix, bool set_backwards) {
  Config entry = serialize_nested(layer);
  entry["config"]["name"] = prefix + without_prefix(layer.name(), prefix);
  if (set_backwards) entry["config"]["go_backwards"] = true;
  auto copy = std::dynamic_pointer_cast<RNNImpl>(layer_from_config(entry));
  if (!copy) throw ValueError("Bidirectional: could not copy layer '" + layer.name() + "'");
  return copy;
}

Tensor flip_time(const Tensor& x) {
  const int64_t t = x.shape()[1];
  std::vector<int64_t> idx(static_cast<std::size_t>(t));
  for (int64_t i = 0; i < t; ++i) idx[static_cast<std::size_t>(i)] = t - 1 - i;
  return gather(x, Tensor(idx, Shape{t}), 1);
}
}  // namespace

BidirectionalImpl::BidirectionalImpl(std::shared_ptr<RNNImpl> layer, BidirectionalOptions o)
    : Layer(base_options(o)), merge_mode_(o.merge_mode) {
  if (!layer) throw ValueError("Please initialize `Bidirectional` layer with a `keras.layers.Layer` instance. Received: None");
  if (merge_mode_ && *merge_mode_ != "sum" && *merge_mode_ != "mul" && *merge_mode_ != "ave" && *merge_mode_ != "concat")
    throw ValueError("Invalid merge mode. Received: " + *merge_mode_ +
                     ". Merge mode should be one of {\"sum\", \"mul\", \"ave\", \"concat\", None}");
  forward_ = copy_of(*layer, "forward_", false);
  backward_ = o.backward_layer ? o.backward_layer : copy_of(*layer, "backward_", true);
  const RNNOptions& f = forward_->rnn_options();
  const RNNOptions& b = backward_->rnn_options();
  if (f.go_backwards == b.go_backwards)
    throw ValueError("Forward layer and backward layer should have different `go_backwards` value. Received: "
                     "forward_layer.go_backwards " + std::string(f.go_backwards ? "True" : "False") +
                     ", backward_layer.go_backwards=" + (b.go_backwards ? "True" : "False"));
  if (f.stateful != b.stateful || f.return_sequences != b.return_sequences || f.return_state != b.return_state)
    throw ValueError("Forward layer and backward layer are expected to have the same value for attributes "
                     "\"stateful\", \"return_sequences\" and \"return_state\"");
  // Keras: padded steps of a returned sequence are zeros in both directions.
  forward_->set_zero_output_for_mask(f.return_sequences);
  backward_->set_zero_output_for_mask(b.return_sequences);
  track_layer(forward_, "forward_layer");
  track_layer(backward_, "backward_layer");
  apply_input_shape(*this, o);
  set_supports_masking(true);
}

void BidirectionalImpl::build(const Shape& s) {
  forward_->build_for(s);
  backward_->build_for(s);
  prefix_weight_paths(*forward_, name());
  prefix_weight_paths(*backward_, name());
}
void BidirectionalImpl::build(const std::vector<Shape>& shapes) { build(shapes.at(0)); }

Shape BidirectionalImpl::compute_output_shape(const Shape& s) { return compute_output_shape(std::vector<Shape>{s}).at(0); }

std::vector<Shape> BidirectionalImpl::compute_output_shape(const std::vector<Shape>& shapes) {
  std::vector<Shape> f = forward_->compute_output_shape(std::vector<Shape>{shapes.at(0)});
  std::vector<Shape> b = backward_->compute_output_shape(std::vector<Shape>{shapes.at(0)});
  std::vector<Shape> out;
  if (!merge_mode_) {
    out = {f[0], b[0]};
  } else {
    Shape y = f[0];
    if (*merge_mode_ == "concat") y[-1] = f[0][-1] + b[0][-1];
    out = {y};
  }
  out.insert(out.end(), f.begin() + 1, f.end());
  out.insert(out.end(), b.begin() + 1, b.end());
  return out;
}

Tensor BidirectionalImpl::compute_mask(const Tensor&, const Tensor& mask) {
  return forward_->rnn_options().return_sequences ? mask : Tensor();
}

std::vector<Tensor> BidirectionalImpl::merge(const Tensor& y_in, const Tensor& y_rev_in) const {
  // Keras casts both directions to the wrapper's compute dtype before merging them.
  const Tensor y = cast_input(y_in, compute_dtype());
  Tensor y_rev = cast_input(forward_->rnn_options().return_sequences ? flip_time(y_rev_in) : y_rev_in, compute_dtype());
  if (!merge_mode_) return {y, y_rev};
  if (*merge_mode_ == "concat") return {concat({y, y_rev}, -1)};
  if (*merge_mode_ == "sum") return {y + y_rev};
  if (*merge_mode_ == "ave") return {(y + y_rev) / 2.0};
  return {y * y_rev};
}

Tensor BidirectionalImpl::call(const Tensor& x, bool training) { return call(std::vector<Tensor>{x}, training).at(0); }

std::vector<Tensor> BidirectionalImpl::call(const std::vector<Tensor>& xs, bool training) { return run(xs, Tensor(), training); }

Tensor BidirectionalImpl::call_masked(const Tensor& x, const Tensor& mask, bool training) {
  return run({x}, mask, training).at(0);
}

std::vector<Tensor> BidirectionalImpl::call_masked(const std::vector<Tensor>& xs, const Tensor& mask, bool training) {
  return run(xs, mask, training);
}

std::vector<Tensor> BidirectionalImpl::call_kwargs(const std::vector<Tensor>& xs, const CallKwargs& kwargs,
                                                   const Tensor& mask, bool training) {
  CallKwargs rest = kwargs;
  rest.erase("initial_state");
  if (!rest.empty()) return Layer::call_kwargs(xs, rest, mask, training);
  return run(with_initial_state(*this, xs, *kwargs.find("initial_state")), mask, training);
}

std::vector<Tensor> BidirectionalImpl::run(const std::vector<Tensor>& xs, const Tensor& mask, bool training) {
  // Keras splits the initial states in half: the forward layer's, then the backward layer's.
  std::vector<Tensor> fin{xs.at(0)}, bin{xs.at(0)};
  const std::size_t states = xs.size() - 1, half = states / 2;
  if (states % 2 != 0)
    throw ValueError("Layer '" + name() + "' (Bidirectional) needs as many initial states for the backward layer as "
                     "for the forward layer, but received " + std::to_string(states) + " states");
  for (std::size_t i = 0; i < states; ++i) (i < half ? fin : bin).push_back(xs[1 + i]);
  // A mask given to the call goes to both directions; otherwise each reads the
  // mask attached to the sequence.
  auto direction = [&](RNNImpl& layer, const std::vector<Tensor>& in) {
    return mask.defined() ? layer(in, CallOptions{.mask = mask, .training = training}) : layer(in, training);
  };
  std::vector<Tensor> y = direction(*forward_, fin);
  std::vector<Tensor> y_rev = direction(*backward_, bin);
  std::vector<Tensor> out = merge(y.at(0), y_rev.at(0));
  out.insert(out.end(), y.begin() + 1, y.end());
  out.insert(out.end(), y_rev.begin() + 1, y_rev.end());
  return out;
}

Config BidirectionalImpl::get_config() const {
  Config c = base_config();
  c["merge_mode"] = merge_mode_ ? Config(*merge_mode_) : Config(nullptr);
  c["layer"] = serialize_nested(*forward_);
  c["backward_layer"] = serialize_nested(*backward_);
  add_declared_shape(*this, c);
  return c;
}

std::shared_ptr<BidirectionalImpl> BidirectionalImpl::from_config(const Config& config) {
  auto layer = nested_from_config<RNNImpl>(config, "layer", "Bidirectional");
  ConfigReader r("Bidirectional", config);
  BidirectionalOptions o;
  r.base(o);
  read_fields(r, o);
  if (r.has("merge_mode") && config["merge_mode"].is_null()) o.merge_mode = std::nullopt;
  if (config.contains("backward_layer") && config["backward_layer"].is_object())
    o.backward_layer = nested_from_config<RNNImpl>(config, "backward_layer", "Bidirectional");
  return std::make_shared<BidirectionalImpl>(layer, o);
}

KILN_REGISTER_LAYER(BidirectionalImpl, "Bidirectional")

}  // namespace kiln::layers

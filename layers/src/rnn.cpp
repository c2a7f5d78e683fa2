// RNN: the loop over time around a cell, with Keras's masking rules
// (keras/src/backend/jax/rnn.py): a masked step keeps the previous states and
// outputs the previous output (the first state: lax.scan's rule) or zeros
// (zero_output_for_mask).
#include "kiln/layers/rnn.h"

#include <nlohmann/json.hpp>
#include <optional>

#include "config_fields.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "nested_layers.h"

namespace kiln::layers {

using namespace detail;

namespace {
/// x reversed along axis 1 (time), differentiably.
Tensor reverse_time(const Tensor& x) {
  const int64_t t = x.shape()[1];
  std::vector<int64_t> idx(static_cast<std::size_t>(t));
  for (int64_t i = 0; i < t; ++i) idx[static_cast<std::size_t>(i)] = t - 1 - i;
  return gather(x, Tensor(idx, Shape{t}), 1);
}
/// A per-example (batch,) mask shaped (batch, 1, ..., 1) to broadcast over a rank-`rank` tensor.
Tensor batch_axis(const Tensor& keep, int64_t rank) {
  Shape s{keep.shape()[0]};
  for (int64_t i = 1; i < rank; ++i) s.push_back(1);
  return reshape(keep, s);
}
}  // namespace

RNNImpl::RNNImpl(std::shared_ptr<RNNCell> cell, RNNOptions o)
    : RNNImpl(base_options(o), o, std::move(cell)) {
  apply_input_shape(*this, o);
}

RNNImpl::RNNImpl(LayerOptions base, const RNNOptions& rnn, std::shared_ptr<RNNCell> cell)
    : Layer(std::move(base)), rnn_(rnn), cell_(std::move(cell)) {
  if (!cell_) throw ValueError("RNN: the cell is null");
  track_layer(cell_, "cell");
  set_supports_masking(true);
  set_input_spec({InputSpec{.min_ndim = 3}});
}

void RNNImpl::build(const Shape& s) {
  if (s.rank() < 3)
    throw ShapeError("Layer '" + name() + "' (" + class_name() +
                     ") expects inputs of shape (batch, time, features), but received " + s.to_string());
  if (rnn_.stateful && s[0] < 0)
    throw ValueError("When using `stateful=True` in a RNN, the batch size must be static. Found dynamic batch size: "
                     "sequence.shape=" + s.to_string());
  Shape step{s[0]};
  for (int64_t i = 2; i < s.rank(); ++i) step.push_back(s[i]);
  cell_->build_for(step);
  prefix_weight_paths(*cell_, name());
}
void RNNImpl::build(const std::vector<Shape>& shapes) { build(shapes.at(0)); }

Shape RNNImpl::compute_output_shape(const Shape& s) { return compute_output_shape(std::vector<Shape>{s}).at(0); }

std::vector<Shape> RNNImpl::compute_output_shape(const std::vector<Shape>& shapes) {
  const Shape& s = shapes.at(0);
  std::vector<Shape> out;
  out.push_back(rnn_.return_sequences ? Shape{s[0], s[1], cell_->output_size()} : Shape{s[0], cell_->output_size()});
  if (rnn_.return_state)
    for (int64_t n : cell_->state_size()) out.push_back(Shape{s[0], n});
  return out;
}

Tensor RNNImpl::compute_mask(const Tensor&, const Tensor& mask) {
  return rnn_.return_sequences ? mask : Tensor();
}

void RNNImpl::reset_states(const std::vector<Tensor>& values) {
  if (!values.empty()) {
    if (values.size() != cell_->state_size().size())
      throw ValueError("Layer '" + name() + "' expects " + std::to_string(cell_->state_size().size()) +
                       " states, but reset_states() received " + std::to_string(values.size()));
    states_ = values;
    return;
  }
  for (auto& s : states_) s = zeros_like(s);
}

std::vector<Tensor> RNNImpl::initial_states(const Tensor& x, const std::vector<Tensor>& given) {
  const int64_t batch = x.shape()[0];
  if (!given.empty()) {
    if (given.size() != cell_->state_size().size())
      throw ValueError("Layer '" + name() + "' (" + class_name() + ") has " +
                       std::to_string(cell_->state_size().size()) + " states, but received " +
                       std::to_string(given.size()) + " initial states");
    std::vector<Tensor> out;
    for (const auto& g : given) out.push_back(g.dtype() == x.dtype() ? g : cast(g, x.dtype()));
    return out;
  }
  if (rnn_.stateful && !states_.empty()) {
    if (states_[0].shape()[0] != batch)
      throw ValueError("If an RNN is stateful, the batch size of the input sequences must be the same as the batch "
                       "size of the initial state. \n- Expected batch size: " + std::to_string(states_[0].shape()[0]) +
                       "\n- Received batch size: " + std::to_string(batch));
    return states_;
  }
  Shape step{batch};
  for (int64_t i = 2; i < x.rank(); ++i) step.push_back(x.shape()[i]);
  std::vector<Tensor> out = cell_->initial_state(step);
  for (auto& s : out)
    if (s.dtype() != x.dtype()) s = cast(s, x.dtype());
  return out;
}

std::vector<Tensor> RNNImpl::step_loop(const Tensor& seq, const Tensor& mask, std::vector<Tensor>& states, bool training) {
  const int64_t steps = seq.shape()[1];
  std::vector<Tensor> outputs;
  Tensor last;
  for (int64_t t = 0; t < steps; ++t) {
    RNNCell::StepResult r = cell_->step(seq[{Slice(), t}], states, training);
    if (mask.defined()) {
      const Tensor keep = mask[{Slice(), t}];  // (batch,)
      // lax.scan's rule: a masked step outputs the previous first state; the
      // unrolled loop (and zero_output_for_mask) output the previous output or zeros.
      Tensor held = rnn_.zero_output_for_mask ? zeros_like(r.output)
                    : rnn_.unroll             ? (last.defined() ? last : zeros_like(r.output))
                                              : states[0];
      r.output = where(batch_axis(keep, r.output.rank()), r.output, held);
      for (std::size_t i = 0; i < r.states.size(); ++i)
        r.states[i] = where(batch_axis(keep, r.states[i].rank()), r.states[i], states[i]);
    }
    states = r.states;
    last = r.output;
    if (rnn_.return_sequences) outputs.push_back(r.output);
  }
  return {rnn_.return_sequences ? stack(outputs, 1) : last};
}

std::vector<Tensor> RNNImpl::run(const Tensor& input, std::vector<Tensor> states, const Tensor& mask_in, bool training) {
  Tensor x = cast_input(input, compute_dtype());
  states = initial_states(x, states);
  const int64_t steps = x.shape()[1];
  if (steps == 0) {
    std::vector<Tensor> out{zeros(compute_output_shape(std::vector<Shape>{x.shape()}).at(0), x.dtype())};
    if (rnn_.return_state) out.insert(out.end(), states.begin(), states.end());
    return out;
  }
  Tensor mask = mask_in.defined() ? cast(mask_in, DType::bool_) : Tensor();
  if (rnn_.go_backwards) {
    // Reversed before begin_sequence, which treats every step alike (it projects each one and draws one
    // dropout mask for all): the input is narrower than its projection (4·units wide for LSTM).
    x = reverse_time(x);
    if (mask.defined()) mask = reverse_time(mask);
  }
  Tensor seq = cell_->begin_sequence(x, states, training);
  Tensor output;
  // The fused op has lax.scan's masking rule; the unrolled loop's differs.
  std::optional<std::vector<Tensor>> fused;
  if (!(rnn_.unroll && mask.defined())) fused = cell_->run_sequence(seq, states, mask, rnn_.zero_output_for_mask, training);
  if (fused) {
    output = rnn_.return_sequences ? (*fused)[0] : (*fused)[0][{Slice(), steps - 1}];
    states.assign(fused->begin() + 1, fused->end());
  } else {
    output = step_loop(seq, mask, states, training)[0];
  }
  cell_->end_sequence();
  if (rnn_.stateful) {
    states_.clear();
    for (const auto& s : states) states_.push_back(stop_gradient(s));
  }
  std::vector<Tensor> out{output};
  if (rnn_.return_state) out.insert(out.end(), states.begin(), states.end());
  // Keras casts the outputs and states to the layer's compute dtype, whatever its cell's.
  for (Tensor& t : out) t = cast_input(t, compute_dtype());
  return out;
}

Tensor RNNImpl::call(const Tensor& x, bool training) { return run(x, {}, Tensor(), training).at(0); }
std::vector<Tensor> RNNImpl::call(const std::vector<Tensor>& xs, bool training) {
  return run(xs.at(0), std::vector<Tensor>(xs.begin() + 1, xs.end()), Tensor(), training);
}
Tensor RNNImpl::call_masked(const Tensor& x, const Tensor& mask, bool training) {
  return run(x, {}, mask, training).at(0);
}
std::vector<Tensor> RNNImpl::call_masked(const std::vector<Tensor>& xs, const Tensor& mask, bool training) {
  return run(xs.at(0), std::vector<Tensor>(xs.begin() + 1, xs.end()), mask, training);
}

Config RNNImpl::get_config() const {
  Config c = base_config();
  write_fields(c, rnn_);
  c["cell"] = serialize_nested(*cell_);
  add_declared_shape(*this, c);
  return c;
}

std::shared_ptr<RNNImpl> RNNImpl::rnn_from_config(const Config& config) {
  auto cell = nested_from_config<RNNCell>(config, "cell", "RNN");
  Config rest = config;
  rest.erase("cell");
  ConfigReader r("RNN", rest);
  RNNOptions o;
  r.base(o);
  read_fields(r, o);
  return std::make_shared<RNNImpl>(cell, o);
}

KILN_REGISTER_LAYER_FACTORY(RNNImpl, RNNImpl::rnn_from_config, "RNN")

}  // namespace kiln::layers

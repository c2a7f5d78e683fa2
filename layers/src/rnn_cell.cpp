// RNNCell defaults and Keras's DropoutRNNCell: dropout masks drawn once per
// sequence, and the input projection of the whole sequence in one matmul.
#include "kiln/layers/rnn_cell.h"

#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/random.h"
#include "kiln/ops/recurrent_ops.h"

namespace kiln::layers {

std::vector<Tensor> RNNCell::get_initial_state(int64_t batch) {
  std::vector<Tensor> out;
  for (int64_t s : state_size()) out.push_back(zeros({batch, s}, compute_dtype()));
  return out;
}

Tensor RNNCell::begin_sequence(const Tensor& sequence, const std::vector<Tensor>&, bool) { return sequence; }

std::optional<std::vector<Tensor>> RNNCell::run_sequence(const Tensor&, const std::vector<Tensor>&, const Tensor&, bool,
                                                         bool) {
  return std::nullopt;
}

std::vector<Tensor> RNNCell::call(const std::vector<Tensor>& xs, bool training) {
  std::vector<Tensor> states(xs.begin() + 1, xs.end());
  if (states.empty()) states = initial_state(xs[0].shape());
  if (states.size() != state_size().size())
    throw ValueError("Cell '" + name() + "' (" + class_name() + ") has " + std::to_string(state_size().size()) +
                     " states, but was called with " + std::to_string(states.size()));
  StepResult r = step(xs[0], states, training);
  std::vector<Tensor> out{r.output};
  out.insert(out.end(), r.states.begin(), r.states.end());
  return out;
}

Tensor RNNCell::call(const Tensor& x, bool training) { return call(std::vector<Tensor>{x}, training).at(0); }

DropoutRNNCell::DropoutRNNCell(LayerOptions base, double dropout, double recurrent_dropout,
                               std::optional<uint64_t> seed)
    : RNNCell(std::move(base)), dropout_(std::min(1.0, std::max(0.0, dropout))),
      recurrent_dropout_(std::min(1.0, std::max(0.0, recurrent_dropout))), seed_(seed) {}

Tensor DropoutRNNCell::dropout_mask(const Tensor& like, double rate) {
  std::optional<uint64_t> seed;
  if (seed_) seed = *seed_ + 0x9E3779B97F4A7C15ull * (draws_++);  // a fresh, reproducible mask per draw
  Tensor keep = cast(random::uniform(like.shape(), 0.0, 1.0, like.dtype(), seed) >= rate, like.dtype());
  return keep * (1.0 / (1.0 - rate));
}

Tensor DropoutRNNCell::begin_sequence(const Tensor& sequence, const std::vector<Tensor>& states, bool training) {
  const Shape s = sequence.shape();  // (batch, time, features)
  input_mask_ = recurrent_mask_ = Tensor();
  if (training && dropout_ > 0 && dropout_ < 1) input_mask_ = dropout_mask(zeros({s[0], s[2]}, sequence.dtype()), dropout_);
  if (training && recurrent_dropout_ > 0 && recurrent_dropout_ < 1 && !states.empty())
    recurrent_mask_ = dropout_mask(states[0], recurrent_dropout_);
  // The same input mask at every timestep, as Keras's cell reuses it.
  Tensor x = input_mask_.defined() ? sequence * expand_dims(input_mask_, 1) : sequence;
  Tensor p = project(reshape(x, {s[0] * s[1], s[2]}));  // (batch·time, features) · kernel: one matmul
  projected_ = true;
  return reshape(p, {s[0], s[1], p.shape()[1]});
}

void DropoutRNNCell::end_sequence() {
  projected_ = false;
  input_mask_ = recurrent_mask_ = Tensor();
}

Tensor DropoutRNNCell::input_part(const Tensor& x, bool training) {
  if (projected_) return x;
  if (training && dropout_ > 0 && dropout_ < 1) return project(x * dropout_mask(x, dropout_));
  return project(x);
}

Tensor DropoutRNNCell::recurrent_input(const Tensor& h, bool training) {
  if (!training || !(recurrent_dropout_ > 0 && recurrent_dropout_ < 1)) return h;
  if (projected_ && recurrent_mask_.defined()) return h * recurrent_mask_;
  return h * dropout_mask(h, recurrent_dropout_);
}

bool DropoutRNNCell::can_fuse(bool training, const std::string& activation, const std::string& recurrent_activation) const {
  const bool recurrent_dropout = training && recurrent_dropout_ > 0 && recurrent_dropout_ < 1;
  return projected_ && !recurrent_dropout && recurrence_supports(activation) && recurrence_supports(recurrent_activation);
}

}  // namespace kiln::layers

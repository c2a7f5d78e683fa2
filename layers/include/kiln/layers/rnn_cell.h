#pragma once
// RNNCell: one step of a recurrence, the unit that kiln::layers::RNN loops over
// time. A user-written cell derives from RNNCell and implements state_size()
// and step(); RNN(cell) then gives it return_sequences, return_state,
// go_backwards, stateful, masking and initial_state, as Keras's RNN(cell).
//
//   struct MinimalCell : kiln::layers::RNNCell {
//     int64_t units = 4;  kiln::Variable kernel;
//     std::vector<int64_t> state_size() const override { return {units}; }
//     void build(const kiln::Shape& s) override { kernel = add_weight("kernel", {s[-1], units}); }
//     StepResult step(const kiln::Tensor& x, const std::vector<kiln::Tensor>& h, bool) override {
//       kiln::Tensor y = kiln::tanh(kiln::matmul(x, kernel.value()) + h[0]);
//       return {y, {y}};
//     }
//   };
//   kiln::layers::RNN rnn(std::make_shared<MinimalCell>(), {.return_sequences = true});
//
// Calling a cell directly takes the list {x, state...} and returns {output, new state...}.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kiln/nn/layer.h"

namespace kiln::layers {

/// One step of a recurrence, the unit RNN loops over time (Keras's RNN cell protocol).
/// A user-written cell derives from RNNCell and implements state_size() and step();
/// kiln::layers::RNN(cell) then gives it return_sequences, return_state, go_backwards,
/// stateful, masking and initial_state. Calling a cell directly takes the list
/// {x, state...} and returns {output, new state...}.
class RNNCell : public Layer {
 public:
  /// What step() returns.
  struct StepResult {
    Tensor output;  ///< The step's output, (batch, output_size()).
    std::vector<Tensor> states;  ///< The new states, one per state_size() entry.
  };
  using Layer::Layer;
  /// The width of each state tensor (LSTM: {units, units}).
  virtual std::vector<int64_t> state_size() const = 0;
  /// The width of the output; defaults to the first state's.
  virtual int64_t output_size() const { return state_size().at(0); }
  /// One timestep: x (batch, features) and the states -> output and new states.
  virtual StepResult step(const Tensor& x, const std::vector<Tensor>& states, bool training) = 0;
  /// Zeros of (batch, size) per state (Keras's get_initial_state).
  virtual std::vector<Tensor> get_initial_state(int64_t batch);
  /// The initial states for a step input of shape `step_input` (batch, ...).
  /// Defaults to get_initial_state(batch); cells whose states have more axes
  /// than (batch, size) (ConvLSTMCell) size them from the step input.
  virtual std::vector<Tensor> initial_state(const Shape& step_input) { return get_initial_state(step_input[0]); }

  /// Called by RNN once before the loop over time, with the whole sequence
  /// (batch, time, features); returns what step() receives per timestep. The
  /// default returns the sequence; the built-in cells draw their dropout masks
  /// here and compute the input projection x · kernel + bias for every
  /// timestep in one matmul, so step() only adds the recurrent part.
  virtual Tensor begin_sequence(const Tensor& sequence, const std::vector<Tensor>& states, bool training);
  /// Called by RNN after the loop (the built-in cells forget their dropout masks).
  virtual void end_sequence() {}
  /// The whole loop as one op (kiln/ops/recurrent_ops.h), given begin_sequence()'s
  /// result: {outputs (batch, time, units), final states...}, or nullopt when this
  /// cell (or this call: recurrent dropout in training) needs the step-by-step loop.
  virtual std::optional<std::vector<Tensor>> run_sequence(const Tensor& projected, const std::vector<Tensor>& states,
                                                          const Tensor& mask, bool zero_output_for_mask,
                                                          bool training);

  bool returns_list() const override { return true; }

 protected:
  std::vector<Tensor> call(const std::vector<Tensor>& xs, bool training) override;
  Tensor call(const Tensor& x, bool training) override;
};

/// What the built-in cells share: Keras's DropoutRNNCell (one dropout mask
/// for the inputs and one for the recurrent state per call of the layer) and
/// the projected-input mode that begin_sequence() switches on.
class DropoutRNNCell : public RNNCell {
 public:
  /// Keras's call(..., training=False): dropout on the inputs and states only when training.
  std::optional<bool> default_training() const override { return false; }
  /// `base` holds the base-layer options; `dropout` and `recurrent_dropout` are the input and
  /// recurrent dropout rates, `seed` their seed (none: nondeterministic).
  DropoutRNNCell(LayerOptions base, double dropout, double recurrent_dropout, std::optional<uint64_t> seed);
  Tensor begin_sequence(const Tensor& sequence, const std::vector<Tensor>& states, bool training) override;
  void end_sequence() override;

 protected:
  /// x · kernel (+ input bias), for x of shape (n, features).
  virtual Tensor project(const Tensor& x) = 0;
  /// The step's input part: x itself when begin_sequence() projected the
  /// sequence already, else dropout (training) and project(x).
  Tensor input_part(const Tensor& x, bool training);
  /// h with the recurrent dropout mask applied (training only).
  Tensor recurrent_input(const Tensor& h, bool training);
  /// Whether run_sequence() may use the fused op: the sequence was projected,
  /// no recurrent dropout is drawn, and the op knows both activations.
  bool can_fuse(bool training, const std::string& activation, const std::string& recurrent_activation) const;

  /// The input and recurrent dropout rates.
  /// @{
  double dropout_, recurrent_dropout_;
  /// @}
  std::optional<uint64_t> seed_;  ///< The dropout seed; none: the global generator.

 private:
  Tensor dropout_mask(const Tensor& like, double rate);
  bool projected_ = false;
  Tensor input_mask_, recurrent_mask_;
  uint64_t draws_ = 0;
};

}  // namespace kiln::layers

#pragma once
// RNN: runs a cell (kiln/layers/rnn_cell.h) over the time axis, as Keras's RNN.
//   x: (batch, time, features) -> (batch, output_size), or
//      (batch, time, output_size) with return_sequences.
//   A list call {x, state...} gives the initial states; with return_state the
//   layer answers {output, final state...} (call_multi).
//   A mask on x (Embedding(mask_zero), Masking) makes masked steps carry the
//   previous states, and their output repeat the previous one (zeros with
//   zero_output_for_mask), as Keras's backend rnn.
//   stateful: the final states of a call are the next call's initial states
//   (the batch size must stay the same) until reset_states().
//   unroll is stored for the config; the loop is the same either way.
//
//   L::RNN rnn(std::make_shared<MyCell>(), {.return_sequences = true});
//   L::LSTM, L::GRU and L::SimpleRNN are RNNs over their built-in cells.
#include <memory>
#include <string>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/layers/rnn_cell.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// The options every recurrent layer shares (Keras's RNN keyword arguments).
struct RNNOptions {
  bool return_sequences = false;  ///< Return the output of every timestep (batch, time, units), not only the last.
  bool return_state = false;  ///< Also return the final states: {output, state...}.
  bool go_backwards = false;  ///< Process the sequence in reverse time order.
  bool stateful = false;  ///< Carry the final states over to the next call, until reset_states().
  bool unroll = false;  ///< Stored for the config; the loop is the same either way.
  bool zero_output_for_mask = false;  ///< Masked steps output zeros instead of repeating the previous output.
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(RNNOptions, return_sequences, return_state, go_backwards, stateful, unroll, zero_output_for_mask)
};

/// Runs a cell (RNNCell) over the time axis, as Keras's `RNN`: x (batch, time, features)
/// -> (batch, output_size), or (batch, time, output_size) with return_sequences. A list
/// call {x, state...} gives the initial states; with return_state the layer answers
/// {output, final state...}. A mask on x makes masked steps carry the previous states and
/// repeat the previous output (zeros with zero_output_for_mask). Users create it through the
/// handle `kiln::layers::RNN(cell, {...})`; LSTM, GRU and SimpleRNN are RNNs over built-in cells.
class RNNImpl : public Layer {
 public:
  /// Keras's call(..., training=False): dropout on the inputs and states only when training.
  std::optional<bool> default_training() const override { return false; }
  using Options = RNNOptions;  ///< The options struct the constructor takes.
  /// Runs `cell` over time with the given options.
  RNNImpl(std::shared_ptr<RNNCell> cell, RNNOptions options = {});
  std::string class_name() const override { return "RNN"; }
  Config get_config() const override;
  /// {"cell": {...}, ...}: the cell is built from its registered class. (Not
  /// named from_config, which LSTM, GRU and SimpleRNN would inherit.)
  static std::shared_ptr<RNNImpl> rnn_from_config(const Config& config);

  const std::shared_ptr<RNNCell>& cell() const { return cell_; }  ///< The cell run at each timestep.
  const RNNOptions& rnn_options() const { return rnn_; }  ///< The RNN options this layer was created with.
  /// Bidirectional sets it to return_sequences, as Keras does.
  void set_zero_output_for_mask(bool z) { rnn_.zero_output_for_mask = z; }
  /// The states a stateful layer carries (empty before its first call).
  const std::vector<Tensor>& states() const { return states_; }
  /// Zeros the carried states (Keras's reset_states()); `values` sets them instead.
  void reset_states(const std::vector<Tensor>& values = {});

  bool returns_list() const override { return true; }
  Shape compute_output_shape(const Shape& input_shape) override;
  std::vector<Shape> compute_output_shape(const std::vector<Shape>& input_shapes) override;
  Tensor compute_mask(const Tensor& x, const Tensor& previous_mask) override;

 protected:
  /// For the built-in layers: their options hold the RNN keys and the cell's.
  RNNImpl(LayerOptions base, const RNNOptions& rnn, std::shared_ptr<RNNCell> cell);
  void build(const Shape& input_shape) override;
  void build(const std::vector<Shape>& input_shapes) override;
  Tensor call(const Tensor& x, bool training) override;
  std::vector<Tensor> call(const std::vector<Tensor>& xs, bool training) override;
  Tensor call_masked(const Tensor& x, const Tensor& mask, bool training) override;
  std::vector<Tensor> call_masked(const std::vector<Tensor>& xs, const Tensor& mask, bool training) override;
  /// Keras's initial_state keyword: the same as a list call {x, state...}.
  std::vector<Tensor> call_kwargs(const std::vector<Tensor>& xs, const CallKwargs& kwargs, const Tensor& mask,
                                  bool training) override;

 private:
  /// The loop over time: {output, final states...}.
  std::vector<Tensor> run(const Tensor& x, std::vector<Tensor> states, const Tensor& mask, bool training);
  /// The step-by-step loop (cells without a fused op); updates `states`, returns {output}.
  std::vector<Tensor> step_loop(const Tensor& seq, const Tensor& mask, std::vector<Tensor>& states, bool training);
  std::vector<Tensor> initial_states(const Tensor& x, const std::vector<Tensor>& given);

  RNNOptions rnn_;
  std::shared_ptr<RNNCell> cell_;
  std::vector<Tensor> states_;
};

/// The handle: RNN(cell) or RNN(cell, {.return_sequences = true}).
class RNN : public LayerHandle<RNNImpl> {
 public:
  /// Creates an RNN over `cell`.
  explicit RNN(std::shared_ptr<RNNCell> cell, RNNOptions options = {})
      : LayerHandle<RNNImpl>(::kiln::detail::make_named_layer<RNNImpl>(std::move(cell), std::move(options))) {}
};

}  // namespace kiln::layers

#pragma once
// Bidirectional: runs a recurrent layer forwards and a copy of it backwards
// over the sequence, and merges the two outputs (Keras 3's Bidirectional).
//   merge_mode "concat" (default): (..., 2·units); "sum", "mul", "ave": (..., units);
//   std::nullopt (Keras's None): the two outputs as a list (call_multi).
//   With return_sequences the backward output is flipped back to input order.
//   backward_layer: a layer of your own for the backward direction
//   (go_backwards must differ from the forward layer's).
//   return_state: {output, forward states..., backward states...}; a list call
//   {x, states...} or the initial_state keyword gives the forward half of the
//   states, then the backward half.
//
//   L::Bidirectional bi(L::LSTM(8, {.return_sequences = true}));   // (b, t, f) -> (b, t, 16)
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/layers/rnn.h"

namespace kiln::layers {

/// Options of Bidirectional (Keras's `Bidirectional` constructor arguments after layer).
struct BidirectionalOptions {
  /// How the two outputs merge: "concat" (default), "sum", "mul", "ave"; std::nullopt
  /// (Keras's None): both outputs, as a list.
  std::optional<std::string> merge_mode = "concat";
  /// A layer of your own for the backward direction (its go_backwards must differ from
  /// the forward layer's); null: a copy of the forward layer, run backwards.
  std::shared_ptr<RNNImpl> backward_layer = nullptr;
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(BidirectionalOptions, merge_mode)
};

/// Runs a recurrent layer forwards and a copy of it backwards over the sequence and merges
/// the two outputs (Keras 3's `Bidirectional`): "concat" gives (..., 2·units), "sum", "mul"
/// and "ave" (..., units). With return_sequences the backward output is flipped back to
/// input order; return_state answers {output, forward states..., backward states...}.
/// Users create it through the handle `kiln::layers::Bidirectional(layer, {...})`.
class BidirectionalImpl : public Layer {
 public:
  using Options = BidirectionalOptions;  ///< The options struct the constructor takes.
  /// Wraps `layer` (the forward direction); see BidirectionalOptions for the backward one.
  BidirectionalImpl(std::shared_ptr<RNNImpl> layer, BidirectionalOptions options = {});
  std::string class_name() const override { return "Bidirectional"; }
  Config get_config() const override;
  /// Rebuilds the layer from its config, with the nested "layer" (and "backward_layer").
  static std::shared_ptr<BidirectionalImpl> from_config(const Config& config);

  const std::shared_ptr<RNNImpl>& forward_layer() const { return forward_; }  ///< The forward-direction layer.
  const std::shared_ptr<RNNImpl>& backward_layer() const { return backward_; }  ///< The backward-direction layer.
  bool returns_list() const override { return true; }
  Shape compute_output_shape(const Shape& input_shape) override;
  std::vector<Shape> compute_output_shape(const std::vector<Shape>& input_shapes) override;
  Tensor compute_mask(const Tensor& x, const Tensor& previous_mask) override;

 protected:
  void build(const Shape& input_shape) override;
  void build(const std::vector<Shape>& input_shapes) override;
  Tensor call(const Tensor& x, bool training) override;
  std::vector<Tensor> call(const std::vector<Tensor>& xs, bool training) override;
  Tensor call_masked(const Tensor& x, const Tensor& mask, bool training) override;
  std::vector<Tensor> call_masked(const std::vector<Tensor>& xs, const Tensor& mask, bool training) override;
  /// Keras's initial_state keyword: forward states, then backward states.
  std::vector<Tensor> call_kwargs(const std::vector<Tensor>& xs, const CallKwargs& kwargs, const Tensor& mask,
                                  bool training) override;

 private:
  std::vector<Tensor> run(const std::vector<Tensor>& xs, const Tensor& mask, bool training);
  std::vector<Tensor> merge(const Tensor& y, const Tensor& y_rev) const;

  std::optional<std::string> merge_mode_;
  std::shared_ptr<RNNImpl> forward_, backward_;
};

/// The handle: Bidirectional(LSTM(8)) or Bidirectional(layer, {.merge_mode = "sum"}).
class Bidirectional : public LayerHandle<BidirectionalImpl> {
 public:
  /// Wraps `layer` (LSTM, GRU, SimpleRNN, RNN, ...).
  explicit Bidirectional(std::shared_ptr<RNNImpl> layer, BidirectionalOptions options = {})
      : LayerHandle<BidirectionalImpl>(::kiln::detail::make_named_layer<BidirectionalImpl>(std::move(layer), std::move(options))) {}
};

}  // namespace kiln::layers

#pragma once
// StackedRNNCells: several cells as one; each step runs them in order, the
// output of one the input of the next (Keras's StackedRNNCells).
//   state_size(): every cell's states, in order, as one flat list.
//   L::RNN stack(std::make_shared<L::StackedRNNCellsImpl>(std::vector<std::shared_ptr<L::RNNCell>>{
//       std::make_shared<L::LSTMCellImpl>(8), std::make_shared<L::GRUCellImpl>(4)}));
#include <memory>
#include <string>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/layers/rnn_cell.h"

namespace kiln::layers {

/// Options of StackedRNNCells: only the base-layer arguments.
struct StackedRNNCellsOptions {
  KILN_LAYER_BASE_OPTIONS
};

/// Several cells as one (Keras's `StackedRNNCells`): each step runs them in order, the
/// output of one the input of the next; state_size() is every cell's states, in order, as
/// one flat list, and the output is the last cell's. Pass it to RNN, e.g.
/// `kiln::layers::RNN(std::make_shared<StackedRNNCellsImpl>(cells))`.
class StackedRNNCellsImpl : public RNNCell {
 public:
  using Options = StackedRNNCellsOptions;  ///< The options struct the constructor takes.
  /// Stacks `cells`, first to last.
  explicit StackedRNNCellsImpl(std::vector<std::shared_ptr<RNNCell>> cells, StackedRNNCellsOptions options = {});
  std::string class_name() const override { return "StackedRNNCells"; }
  Config get_config() const override;
  /// Rebuilds the stack from a config whose "cells" entries name registered cell classes.
  static std::shared_ptr<StackedRNNCellsImpl> from_config(const Config& config);
  const std::vector<std::shared_ptr<RNNCell>>& cells() const { return cells_; }  ///< The stacked cells, in order.

  std::vector<int64_t> state_size() const override;
  int64_t output_size() const override { return cells_.back()->output_size(); }
  StepResult step(const Tensor& x, const std::vector<Tensor>& states, bool training) override;
  std::vector<Tensor> get_initial_state(int64_t batch) override;
  Tensor begin_sequence(const Tensor& sequence, const std::vector<Tensor>& states, bool training) override;
  void end_sequence() override;

 protected:
  void build(const Shape& input_shape) override;
  using Layer::build;

 private:
  std::vector<std::shared_ptr<RNNCell>> cells_;
};

}  // namespace kiln::layers

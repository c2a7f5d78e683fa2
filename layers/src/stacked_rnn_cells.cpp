// StackedRNNCells: the cells' states side by side in one flat list.
#include "kiln/layers/stacked_rnn_cells.h"

#include <nlohmann/json.hpp>

#include "config_fields.h"
#include "nested_layers.h"

namespace kiln::layers {

using namespace detail;

StackedRNNCellsImpl::StackedRNNCellsImpl(std::vector<std::shared_ptr<RNNCell>> cells, StackedRNNCellsOptions o)
    : RNNCell(base_options(o)), cells_(std::move(cells)) {
  if (cells_.empty()) throw ValueError("StackedRNNCells: the list of cells is empty");
  for (const auto& c : cells_) {
    if (!c) throw ValueError("StackedRNNCells: a cell is null");
    track_layer(c, "cells/");  // Keras saves them under "cells/<class>", as a container
  }
}

std::vector<int64_t> StackedRNNCellsImpl::state_size() const {
  std::vector<int64_t> out;
  for (const auto& c : cells_)
    for (int64_t s : c->state_size()) out.push_back(s);
  return out;
}

std::vector<Tensor> StackedRNNCellsImpl::get_initial_state(int64_t batch) {
  std::vector<Tensor> out;
  for (const auto& c : cells_)
    for (const auto& s : c->get_initial_state(batch)) out.push_back(s);
  return out;
}

void StackedRNNCellsImpl::build(const Shape& s) {
  Shape in = s;
  for (const auto& c : cells_) {
    c->build_for(in);
    prefix_weight_paths(*c, name());
    in = Shape{s[0], c->output_size()};
  }
}

Tensor StackedRNNCellsImpl::begin_sequence(const Tensor& sequence, const std::vector<Tensor>& states, bool training) {
  // Only the first cell sees the sequence; it may project it in one matmul.
  const std::size_t n0 = cells_[0]->state_size().size();
  return cells_[0]->begin_sequence(sequence, std::vector<Tensor>(states.begin(), states.begin() + n0), training);
}

void StackedRNNCellsImpl::end_sequence() {
  for (const auto& c : cells_) c->end_sequence();
}

RNNCell::StepResult StackedRNNCellsImpl::step(const Tensor& x, const std::vector<Tensor>& states, bool training) {
  StepResult out;
  Tensor h = x;
  std::size_t at = 0;
  for (const auto& c : cells_) {
    const std::size_t n = c->state_size().size();
    StepResult r = c->step(h, std::vector<Tensor>(states.begin() + at, states.begin() + at + n), training);
    at += n;
    h = r.output;
    out.states.insert(out.states.end(), r.states.begin(), r.states.end());
  }
  out.output = h;
  return out;
}

Config StackedRNNCellsImpl::get_config() const {
  Config c = base_config();
  Config cells = Config::array();
  for (const auto& cell : cells_) cells.push_back(serialize_nested(*cell));
  c["cells"] = cells;
  return c;
}

std::shared_ptr<StackedRNNCellsImpl> StackedRNNCellsImpl::from_config(const Config& config) {
  if (!config.contains("cells") || !config["cells"].is_array())
    throw ValueError("StackedRNNCells.from_config: the config has no list of cells under 'cells'");
  std::vector<std::shared_ptr<RNNCell>> cells;
  for (const auto& entry : config["cells"]) {
    auto cell = std::dynamic_pointer_cast<RNNCell>(layer_from_config(entry));
    if (!cell) throw ValueError("StackedRNNCells.from_config: an entry of 'cells' is not a recurrent cell");
    cells.push_back(cell);
  }
  ConfigReader r("StackedRNNCells", config);
  StackedRNNCellsOptions o;
  r.base(o);
  return std::make_shared<StackedRNNCellsImpl>(std::move(cells), o);
}

KILN_REGISTER_LAYER(StackedRNNCellsImpl, "StackedRNNCells")

}  // namespace kiln::layers

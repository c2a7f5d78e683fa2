#pragma once
// Data: what fit / evaluate / predict take for x and y: one tensor, a list
// (multi-input/-output models, by position) or a name -> tensor map.
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "kiln/core/tensor.h"

namespace kiln {

/// What fit(), evaluate() and predict() take for x and y (Keras's arrays, lists and
/// dicts): one tensor, a list by position (multi-input/-output models) or a name -> tensor map.
class Data {
 public:
  /// No data (e.g. y for a model whose train_step computes its own loss).
  Data() = default;
  /// One tensor.
  Data(const Tensor& t) : tensors_{t} {}
  /// Tensors by position.
  Data(std::vector<Tensor> ts) : tensors_(std::move(ts)) {}
  /// Tensors by position: {x1, x2}.
  Data(std::initializer_list<Tensor> ts) : tensors_(ts) {}
  /// Tensors by input or output name.
  Data(const std::map<std::string, Tensor>& named) {
    for (const auto& [k, v] : named) {
      names_.push_back(k);
      tensors_.push_back(v);
    }
  }
  /// Whether no tensor was given.
  bool empty() const { return tensors_.empty(); }
  /// The number of tensors.
  std::size_t size() const { return tensors_.size(); }
  /// The tensors (in name order when given by name).
  const std::vector<Tensor>& tensors() const { return tensors_; }
  /// Non-empty when given by name; the model reorders by its input/output names.
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::vector<Tensor> tensors_;
  std::vector<std::string> names_;
};

/// One training/evaluation batch as train_step/test_step receive it.
struct Batch {
  std::vector<Tensor> x;  ///< The inputs.
  std::vector<Tensor> y;  ///< The targets (empty for predict).
  Tensor sample_weight;  ///< undefined when none
};

}  // namespace kiln

#pragma once
// Data: what fit / evaluate / predict take for x and y: one tensor, a list
// (multi-input/-output models, by position) or a name -> tensor map.
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "kiln/core/tensor.h"

namespace kiln {

class Data {
 public:
  Data() = default;
  Data(const Tensor& t) : tensors_{t} {}
  Data(std::vector<Tensor> ts) : tensors_(std::move(ts)) {}
  Data(std::initializer_list<Tensor> ts) : tensors_(ts) {}
  Data(const std::map<std::string, Tensor>& named) {
    for (const auto& [k, v] : named) {
      names_.push_back(k);
      tensors_.push_back(v);
    }
  }
  bool empty() const { return tensors_.empty(); }
  std::size_t size() const { return tensors_.size(); }
  const std::vector<Tensor>& tensors() const { return tensors_; }
  /// Non-empty when given by name; the model reorders by its input/output names.
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::vector<Tensor> tensors_;
  std::vector<std::string> names_;
};

/// One training/evaluation batch as train_step/test_step receive it.
struct Batch {
  std::vector<Tensor> x;
  std::vector<Tensor> y;
  Tensor sample_weight;  // undefined when none
};

}  // namespace kiln

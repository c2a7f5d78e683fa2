// The order of a layer's entries in a Keras weights file.
#include "kiln/nn/stored_variables.h"

#include <algorithm>
#include <memory>
#include <optional>

#include "kiln/nn/layer.h"

namespace kiln {

std::vector<StoredVariable> default_stored_variables(const Layer& l) {
  std::vector<Variable> vs = l.own_variables();
  if (l.trainable()) std::stable_partition(vs.begin(), vs.end(), [](const Variable& v) { return v.trainable(); });
  std::vector<StoredVariable> out;
  for (auto& v : vs) out.push_back({v, {}});
  return out;
}

std::vector<StoredVariable> stored_variables_of(const Layer& l) {
  if (auto custom = dynamic_cast<const CustomVariableStore*>(&l)) return custom->stored_variables();
  return default_stored_variables(l);
}

std::vector<std::function<Tensor()>> saved_together(std::function<std::vector<Tensor>()> compute, std::size_t n) {
  struct Shared {
    std::function<std::vector<Tensor>()> compute;
    std::optional<std::vector<Tensor>> values;
  };
  auto shared = std::make_shared<Shared>(Shared{std::move(compute), std::nullopt});
  std::vector<std::function<Tensor()>> out;
  for (std::size_t i = 0; i < n; ++i)
    out.push_back([shared, i] {
      if (!shared->values) shared->values = shared->compute();
      return shared->values->at(i);
    });
  return out;
}

}  // namespace kiln

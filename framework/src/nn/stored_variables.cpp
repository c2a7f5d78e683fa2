// The order of a layer's entries in a Keras weights file.
#include "kiln/nn/stored_variables.h"

#include <algorithm>

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

}  // namespace kiln

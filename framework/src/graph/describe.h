#pragma once
// Private: a trace's recording seen as a graph of named ops.
#include <string>
#include <vector>

#include "backend/recording.h"
#include "kiln/graph/concrete_function.h"

namespace kiln::graph {

/// Names every tensor by the op that last wrote its buffer before it is read:
/// the placeholders "args_0", ..., captures by variable path or "Const", ops by
/// type with a counter ("Mul", "Mul_1"), outputs "Identity", "Identity_1", ...
/// `plan` is the recording after the graph passes, for executed_operations().
ConcreteFunction describe(const std::string& name, const std::vector<std::string>& signature,
                          const std::vector<Tensor>& placeholders, const backend::Recording& rec,
                          const backend::Recording& plan, const std::vector<Tensor>& outputs);

}  // namespace kiln::graph

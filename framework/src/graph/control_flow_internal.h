#pragma once
// Private: what kiln::cond and kiln::while_loop share.
#include "kiln/core/tensor.h"

namespace kiln::graph {

/// Throws ValueError naming `op` unless `pred` has exactly one element.
void check_pred(const Tensor& pred, const char* op);

}  // namespace kiln::graph

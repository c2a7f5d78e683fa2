#pragma once
// Private: a HostScalar as a 0-d tensor that composed ops can use. Eagerly it
// is the scalar's value. Inside a trace a host node writes the scalar's live
// value into it before each replay's kernels read it, so ops composed from a
// per-step number (an optimizer's learning rate) stay right without a retrace.
#include "kiln/core/host_scalar.h"
#include "kiln/core/tensor.h"

namespace kiln {

Tensor host_scalar_tensor(HostScalar s, DType dtype, Device device);

}  // namespace kiln

#pragma once
// Keras's call context on errors raised inside a layer's call().
#include "kiln/nn/layer.h"

namespace kiln::detail {

/// Rethrows the active kiln::Error with "Exception encountered when calling
/// layer 'name' (type Class)." in front of its message, keeping its type. The
/// innermost layer names itself; the layers and models around it pass the
/// message on unchanged.
[[noreturn]] void rethrow_with_call_context(const Layer& layer);

}  // namespace kiln::detail

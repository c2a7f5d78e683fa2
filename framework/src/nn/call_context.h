#pragma once
// Keras's call context on errors raised inside a layer's call().
#include "kiln/nn/layer.h"

namespace kiln::detail {

/// Rethrows the active kiln::Error with "Exception encountered when calling
/// layer 'name' (type Class)." in front of its message, keeping its type. The
/// innermost layer names itself; the layers and models around it pass the
/// message on unchanged.
[[noreturn]] void rethrow_with_call_context(const Layer& layer);

/// The layer a logged call of a shape-polymorphic trace re-runs on (see
/// core/op_log.h): shared when a shared_ptr owns it, so the function keeps it alive.
std::shared_ptr<Layer> kept_for_rerun(Layer* layer);

}  // namespace kiln::detail

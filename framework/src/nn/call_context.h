#pragma once
// Keras's call context: the `training` value that flows from the outermost
// layer call to the layers called inside it, and the context added to errors
// raised inside a layer's call().
#include <optional>

#include "core/tracing.h"
#include "kiln/nn/layer.h"

namespace kiln::detail {

/// Enters a layer call: resolves its `training` as Keras's Layer.__call__ does
/// (the explicit value; else the context's, when it has one; else the layer's
/// default_training()) and stores the result in the context for the calls made
/// inside it, and after it (Keras keeps the value until the outermost call
/// returns, so a layer also sees its earlier sibling's). The outermost call
/// creates the context on this thread and ends it.
class CallContextScope {
 public:
  CallContextScope(const Layer& layer, std::optional<bool> training);
  ~CallContextScope();
  CallContextScope(const CallContextScope&) = delete;
  CallContextScope& operator=(const CallContextScope&) = delete;
  /// What call() receives.
  bool training() const { return resolved_.value_or(false); }

 private:
  bool entry_ = false;
  std::optional<bool> resolved_;
};

/// The resolved `training` of the container whose call(x, training) is running:
/// the context's value when it agrees with `training` (call() entered through
/// operator(), which resolved it), else `training` itself (call() run directly).
std::optional<bool> own_training(bool training);

/// What a container (Sequential, a functional model) passes to one of its
/// layers, as Keras's functional call does: its own resolved `training` when it
/// has one; else what the node recorded at construction (`recorded`); else the
/// layer's default_training(); else none, which lets the layer take the
/// context's value.
std::optional<bool> training_for_sublayer(std::optional<bool> own, std::optional<bool> recorded, const Layer& layer);

/// Rethrows the active kiln::Error with "Exception encountered when calling
/// layer 'name' (type Class)." in front of its message, keeping its type. The
/// innermost layer names itself; the layers and models around it pass the
/// message on unchanged.
[[noreturn]] void rethrow_with_call_context(const Layer& layer);

/// What errors raised in `layer`'s call say about it: Keras's "Exception
/// encountered when calling layer 'name' (type Class)." and its error_arguments().
tracing::LayerErrorContext layer_error_context(const Layer& layer);
/// The same for tracing::LayerScope, which knows the layer only as a pointer.
tracing::LayerErrorContext describe_layer_for_trace(const void* layer);

/// The layer a logged call of a shape-polymorphic trace re-runs on (see
/// core/op_log.h): shared when a shared_ptr owns it, so the function keeps it alive.
std::shared_ptr<Layer> kept_for_rerun(Layer* layer);

}  // namespace kiln::detail

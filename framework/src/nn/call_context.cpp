// Keras's call context: `training` across nested layer calls, and the context
// of errors raised inside a layer (call_context.h).
#include "nn/call_context.h"

#include <string>
#include <string_view>

#include "core/error_rethrow.h"
#include "kiln/core/error.h"

namespace kiln::detail {

namespace {
constexpr std::string_view kCallContext = "Exception encountered when calling layer '";

struct CallContext {
  bool active = false;
  std::optional<bool> training;
};
// One per thread, as Keras keeps it in its thread-local global state.
thread_local CallContext t_context;
}  // namespace

CallContextScope::CallContextScope(const Layer& layer, std::optional<bool> training) {
  if (!t_context.active) {
    t_context = CallContext{true, std::nullopt};
    entry_ = true;
  }
  resolved_ = training ? training : t_context.training ? t_context.training : layer.default_training();
  t_context.training = resolved_;
}

CallContextScope::~CallContextScope() {
  if (entry_) t_context = CallContext{};
}

std::optional<bool> own_training(bool training) {
  if (t_context.active && t_context.training.value_or(false) == training) return t_context.training;
  return training;
}

std::optional<bool> training_for_sublayer(std::optional<bool> own, std::optional<bool> recorded, const Layer& layer) {
  if (own) return own;
  if (recorded) return recorded;
  return layer.default_training();
}

tracing::LayerErrorContext layer_error_context(const Layer& l) {
  return {std::string(kCallContext) + l.name() + "' (type " + l.class_name() + ").", l.error_arguments()};
}

void rethrow_with_call_context(const Layer& l) {
  try {
    throw;
  } catch (const Error& e) {
    if (has_layer_context(e.what())) throw;
    const auto c = layer_error_context(l);
    rethrow_with_message(layer_error_message(c.context, e.what(), c.arguments));
  }
}

tracing::LayerErrorContext describe_layer_for_trace(const void* layer) {
  return layer_error_context(*static_cast<const Layer*>(layer));
}

std::shared_ptr<Layer> kept_for_rerun(Layer* layer) {
  if (auto owned = layer->weak_from_this().lock()) return owned;
  return std::shared_ptr<Layer>(layer, [](Layer*) {});
}

}  // namespace kiln::detail

namespace kiln {

std::optional<bool> Layer::context_training() { return detail::t_context.active ? detail::t_context.training : std::nullopt; }

}  // namespace kiln

// Which layer a recorded node came from, and its errors at replay reported
// as the eager call would report them (recording.h).
#include "backend/recording.h"
#include "core/error_rethrow.h"
#include "core/tracing.h"

namespace kiln::backend {

void Recording::rethrow_in_layer_context(const Node& n, const Error& e) {
  if (n.error_context.empty() || detail::has_layer_context(e.what())) throw;
  detail::rethrow_with_message(detail::layer_error_message(n.error_context, e.what(), n.error_arguments));
}

void set_node_layer(Node& n) {
  n.layer = tracing::current_layer_path();
  auto c = tracing::current_layer_error_context();
  n.error_context = std::move(c.context);
  n.error_arguments = std::move(c.arguments);
}

void copy_node_layer(Node& to, const Node& from) {
  to.layer = from.layer;
  to.error_context = from.error_context;
  to.error_arguments = from.error_arguments;
}

}  // namespace kiln::backend

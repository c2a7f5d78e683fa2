#include "core/tracing.h"

#include <vector>

#include "core/profiler_events.h"
#include "kiln/core/error.h"

namespace kiln::tracing {
namespace {
thread_local const std::string* t_function = nullptr;
thread_local bool t_first_trace = true;
thread_local LayerScope* t_layer = nullptr;
}  // namespace

LayerScope::LayerScope(const std::string& name, DescribeLayer describe, const void* layer)
    : name_(&name),
      describe_(describe),
      layer_(layer),
      parent_(t_layer),
      profile_begin_(profiler::detail::recording() ? profiler::detail::now_ns() : -1) {
  t_layer = this;
}
LayerScope::LayerScope(const std::string& path, Backward) : LayerScope(path) { backward_ = true; }

LayerErrorContext current_layer_error_context() {
  if (!t_layer || !t_layer->describe_) return {};
  return t_layer->describe_(t_layer->layer_);
}

LayerScope::~LayerScope() {
  if (profile_begin_ >= 0 && profiler::detail::recording()) {
    std::string path = current_layer_path();
    profiler::detail::add(profiler::detail::Kind::layer, backward_ ? "backward" : *name_, std::move(path),
                          profile_begin_, profiler::detail::now_ns());
  }
  t_layer = parent_;
}

std::string current_layer_path() {
  std::vector<const std::string*> names;
  for (const LayerScope* s = t_layer; s; s = s->backward_ ? nullptr : s->parent_) names.push_back(s->name_);
  std::string path;
  for (auto it = names.rbegin(); it != names.rend(); ++it) path += (path.empty() ? "" : "/") + **it;
  return path;
}

const std::string* current_function() { return t_function; }

Scope::Scope(const std::string* name, bool first_trace) : saved_(t_function), saved_first_(t_first_trace) {
  t_function = name;
  t_first_trace = first_trace;
}
Scope::~Scope() {
  t_function = saved_;
  t_first_trace = saved_first_;
}

void check_variable_creation() {
  if (!t_function || t_first_trace) return;
  throw TracingError("kiln::function '" + *t_function +
                   "' only supports singleton variables created on the first call (trace). Make sure the "
                   "Variable is only created once or created outside the function.");
}

void check_value_read(const char* what) {
  if (!t_function) return;
  throw TracingError(std::string(what) + ": a tensor's value cannot be read while kiln::function traces '" +
                   *t_function +
                   "': the traced graph would keep this one value for every later call. Use kiln::cond or "
                   "kiln::while_loop for control flow on tensor values, return the tensor from the function, or "
                   "call kiln::config::run_functions_eagerly(true) to run the function's body eagerly while "
                   "debugging.");
}

}  // namespace kiln::tracing

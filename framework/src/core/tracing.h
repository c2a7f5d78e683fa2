#pragma once
// Private: whether this thread is tracing a kiln::function. Core only keeps the
// flag (and the function's name for messages); the graph layer sets it.
#include <cstdint>
#include <string>

namespace kiln::tracing {

/// The name of the kiln::function this thread is tracing, or null.
const std::string* current_function();

/// Marks this thread as tracing `name` while alive (nests). A retrace
/// (`first_trace` false) may not create variables, as in TensorFlow.
class Scope {
 public:
  Scope(const std::string* name, bool first_trace);
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  const std::string* saved_;
  bool saved_first_;
};

/// Throws TensorFlow's error when a variable is created during a retrace.
void check_variable_creation();

/// Throws when this thread is tracing: a value read inside a trace would be
/// frozen into the graph. `what` names the reading call ("Tensor::item()").
void check_value_read(const char* what);

/// Names the layer whose call() runs on this thread while alive (nests), so a
/// trace can say which layer each recorded op came from.
std::string current_layer_path();

/// What an error in a layer's call says about the layer: the "Exception
/// encountered when calling layer ..." line and the arguments it quotes.
struct LayerErrorContext {
  std::string context;
  std::string arguments;
};
using DescribeLayer = LayerErrorContext (*)(const void* layer);

class LayerScope {
 public:
  /// `describe(layer)`, asked only when a traced op is recorded, gives the
  /// context a replayed op's error is reported with.
  explicit LayerScope(const std::string& name, DescribeLayer describe = nullptr, const void* layer = nullptr);
  /// The backward pass of the layer at `path` (a whole path, "model/dense"): the
  /// gradient ops it records belong to that layer, wherever the pass runs.
  struct Backward {};
  LayerScope(const std::string& path, Backward);
  ~LayerScope();
  LayerScope(const LayerScope&) = delete;
  LayerScope& operator=(const LayerScope&) = delete;

 private:
  friend std::string current_layer_path();
  friend LayerErrorContext current_layer_error_context();
  const std::string* name_;
  DescribeLayer describe_;
  const void* layer_;
  LayerScope* parent_;
  int64_t profile_begin_;  // when the profiler records the call; -1 otherwise
  bool backward_ = false;  // name_ is a whole path, and the pass is not a call
};

/// The innermost layer call's error context, or empty outside any layer call.
LayerErrorContext current_layer_error_context();

/// "model/dense_1": the layers whose calls enclose this point, outermost first; empty outside any.
std::string current_layer_path();

}  // namespace kiln::tracing

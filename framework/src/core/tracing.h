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

class LayerScope {
 public:
  explicit LayerScope(const std::string& name);
  /// The backward pass of the layer at `path` (a whole path, "model/dense"): the
  /// gradient ops it records belong to that layer, wherever the pass runs.
  struct Backward {};
  LayerScope(const std::string& path, Backward);
  ~LayerScope();
  LayerScope(const LayerScope&) = delete;
  LayerScope& operator=(const LayerScope&) = delete;

 private:
  friend std::string current_layer_path();
  const std::string* name_;
  LayerScope* parent_;
  int64_t profile_begin_;  // when the profiler records the call; -1 otherwise
  bool backward_ = false;  // name_ is a whole path, and the pass is not a call
};

/// "model/dense_1": the layers whose calls enclose this point, outermost first; empty outside any.
std::string current_layer_path();

}  // namespace kiln::tracing

#pragma once
// Private: marks a trace whose graph is written out for another runtime (ONNX
// export, and the SavedModel, whose graphs are ONNX). An op with a fused
// backend kernel that those writers have no form for (the recurrence) records
// the ops it is made of instead while one is active.
namespace kiln::backend {

inline thread_local bool t_portable_trace = false;

inline bool portable_trace() { return t_portable_trace; }

class PortableTraceScope {
 public:
  PortableTraceScope() : previous_(t_portable_trace) { t_portable_trace = true; }
  ~PortableTraceScope() { t_portable_trace = previous_; }
  PortableTraceScope(const PortableTraceScope&) = delete;
  PortableTraceScope& operator=(const PortableTraceScope&) = delete;

 private:
  bool previous_;
};

}  // namespace kiln::backend

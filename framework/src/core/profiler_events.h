#pragma once
// Private: the profiler's recording side, for the hooks in the framework (the
// training loop's steps, Layer calls, a compiled step's nodes).
#include <atomic>
#include <cstdint>
#include <string>

namespace kiln::profiler::detail {

extern std::atomic<bool> g_recording;

/// Whether a trace is being recorded: the hooks' only cost when it is not.
inline bool recording() { return g_recording.load(std::memory_order_relaxed); }

/// Nanoseconds on the steady clock.
int64_t now_ns();

/// What an event is: a training/evaluation/prediction step, a layer's call, or one op.
enum class Kind { step, layer, op };

/// Adds a complete event [begin_ns, end_ns) on this thread. `layer` is the
/// layer path an op belongs to ("model/dense_1"; empty outside layers).
void add(Kind kind, std::string name, std::string layer, int64_t begin_ns, int64_t end_ns);

/// Times its own lifetime as one event, when a trace is being recorded.
class Scope {
 public:
  Scope(Kind kind, const char* name) : kind_(kind), name_(name), begin_(recording() ? now_ns() : -1) {}
  ~Scope() {
    if (begin_ >= 0 && recording()) add(kind_, name_, {}, begin_, now_ns());
  }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  Kind kind_;
  const char* name_;
  int64_t begin_;
};

/// Marks the ops added while alive as one run of a compiled step (nests: the
/// outermost run names them), so the summary can count a layer's calls.
class ReplayScope {
 public:
  ReplayScope();
  ~ReplayScope();
  ReplayScope(const ReplayScope&) = delete;
  ReplayScope& operator=(const ReplayScope&) = delete;
};

}  // namespace kiln::profiler::detail

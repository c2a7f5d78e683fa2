#pragma once
// Private: the op log of a shape-polymorphic trace. A kiln::function whose
// input_signature has unknown dimensions (-1) runs its C++ body once; to serve
// another size without running the body (and its side effects) again, the
// trace also logs each outermost op call (an op, a layer's call, a loss, an
// optimizer step, a tape's backward pass) as a closure over the same handles.
// A later size re-runs those closures after pointing the logged tensors at
// tensors of the new shapes, so each op recomputes its own shapes and
// parameters, as TensorFlow's ops do from a graph's symbolic shapes.
//
// Work outside a logged op (a tensor's shape read by the body, a kernel no
// logged op launched) would be frozen at the first size, so it marks the log
// unusable, and the function then traces each new shape instead.
//
// Ops opt in with one line at their top:
//   Tensor add(const Tensor& a, const Tensor& b) {
//     KILN_LOG_OP(add, a, b);
//     ...
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "kiln/core/tensor.h"

namespace kiln::oplog {

/// One outermost op call: re-running it reads the logged handles as they are
/// now and answers with new tensors, one per logged output.
struct Entry {
  std::string name;
  std::function<std::vector<Tensor>()> rerun;
  std::vector<Tensor> outputs;
  std::vector<bool> fresh;  // made by this call (not an input or a variable handed back)
  /// Undoes what a re-run of this entry left behind (an open tape) when a later entry fails.
  std::function<void()> undo;
};

struct Log {
  std::vector<Entry> entries;
  /// Why the log cannot serve another shape (the first thing found); empty if it can.
  std::string unusable;
};

/// Number of threads logging now: lets the hot checks skip a thread-local read.
extern std::atomic<int> g_logging_threads;
bool logging_slow();
/// Whether an op called now is outermost in a logging trace, and so must log itself.
inline bool logging() { return g_logging_threads.load(std::memory_order_relaxed) > 0 && logging_slow(); }

/// Logs this thread's outermost op calls into `log` while alive.
class Scope {
 public:
  explicit Scope(Log& log);
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  Log* saved_log_;
  int saved_depth_;
};

/// Inside an op being logged: its own inner calls are part of it.
class Inside {
 public:
  Inside();
  ~Inside();
  Inside(const Inside&) = delete;
  Inside& operator=(const Inside&) = delete;
};

/// Records that `what` happened outside any logged op, which makes the log
/// unusable (the first reason is kept). Does nothing unless logging().
void outside_op(const std::string& what);
/// Appends an entry for a call that made `outputs` (tensors with ids from `first_id` on are its own).
void append(std::string name, std::function<std::vector<Tensor>()> rerun, std::vector<Tensor> outputs,
            uint64_t first_id);
/// The same with each output's freshness given, and what undoes a re-run (Entry::undo).
void append(std::string name, std::function<std::vector<Tensor>()> rerun, std::vector<Tensor> outputs,
            std::vector<bool> fresh, std::function<void()> undo = {});
/// An id below every tensor made from now on (it draws one: ids need only be unique and increasing).
uint64_t tensor_id_mark();

/// The tensors in an op's result, in a fixed order (undefined ones kept, so positions match).
inline void flatten(const Tensor& t, std::vector<Tensor>& out) { out.push_back(t); }
inline void flatten(const std::optional<Tensor>& t, std::vector<Tensor>& out) { out.push_back(t ? *t : Tensor()); }
template <class T>
void flatten(const std::vector<T>& v, std::vector<Tensor>& out) {
  for (const auto& x : v) flatten(x, out);
}
template <class K, class T>
void flatten(const std::map<K, T>& m, std::vector<Tensor>& out) {
  for (const auto& [k, x] : m) flatten(x, out);
}
template <class A, class B>
void flatten(const std::pair<A, B>& p, std::vector<Tensor>& out) {
  flatten(p.first, out);
  flatten(p.second, out);
}
template <class... T>
void flatten(const std::tuple<T...>& t, std::vector<Tensor>& out) {
  std::apply([&](const auto&... x) { (flatten(x, out), ...); }, t);
}

/// Runs `f(args...)` as one logged op named `name`: its inner calls are not
/// logged, and the entry re-runs `f` on copies of `args` (tensors are handles,
/// so a re-run sees what they point at then). Returns f's result.
template <class F, class... A>
auto run_logged(const char* name, F f, const A&... args) {
  static_assert((!std::is_pointer_v<A> && ...), "a logged op's arguments are kept: pass values, not pointers");
  using R = decltype(f(args...));
  const uint64_t first = tensor_id_mark();
  auto rerun = [f, args...]() {
    std::vector<Tensor> out;
    if constexpr (std::is_void_v<R>) f(args...);
    else flatten(f(args...), out);
    return out;
  };
  if constexpr (std::is_void_v<R>) {
    {
      Inside inside;
      f(args...);
    }
    append(name, std::move(rerun), {}, first);
  } else {
    std::optional<R> r;
    {
      Inside inside;
      r.emplace(f(args...));
    }
    std::vector<Tensor> outputs;
    flatten(*r, outputs);
    append(name, std::move(rerun), std::move(outputs), first);
    return std::move(*r);
  }
}

}  // namespace kiln::oplog

/// At the top of an op (a free function): when the call is outermost in a
/// logging trace, runs the op as one logged call and returns its result.
#define KILN_LOG_OP(fn, ...)                                                                              \
  if (::kiln::oplog::logging())                                                                           \
  return ::kiln::oplog::run_logged(#fn, [](const auto&... kiln_args) { return fn(kiln_args...); }, __VA_ARGS__)

#pragma once
// Private: a tiny fork-join pool for the CPU kernels. One worker per extra core;
// the calling thread takes the first share, so a 2-core machine uses exactly
// two threads. OpenBLAS keeps its own threads for GEMM; our kernels never run
// at the same time as a GEMM, so the two do not oversubscribe the cores.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace kiln::cpu {

/// A non-owning reference to a callable, for work handed to the pool: unlike a
/// std::function it never copies the callable, so it never allocates (a
/// replayed trace's kernels run without touching the heap). The callable must
/// outlive the call it is passed to, as a lambda argument does.
template <class Sig>
class FnRef;
template <class R, class... A>
class FnRef<R(A...)> {
 public:
  template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, FnRef> && std::is_invocable_r_v<R, F&, A...>)
  FnRef(F&& f)  // NOLINT: implicit, as std::function is
      : obj_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* o, A... a) -> R { return (*static_cast<std::remove_reference_t<F>*>(o))(std::forward<A>(a)...); }) {}
  R operator()(A... a) const { return call_(obj_, std::forward<A>(a)...); }

 private:
  void* obj_;
  R (*call_)(void*, A...);
};

/// Threads used by Kiln's own kernels (KILN_NUM_THREADS, else the core count).
int num_threads();
/// Sends the pool's spinning workers to sleep now, before a library with
/// threads of its own (oneDNN's OpenMP team) takes every core: a worker
/// spinning out its budget there would take a core from that team.
void park_workers();
/// Splits [0, n) into `parts` contiguous ranges and runs fn(part, begin, end) on each, in parallel.
void parallel_for_parts(int64_t n, int parts, FnRef<void(int, int64_t, int64_t)> fn);
/// Splits [0, n) over num_threads() (serially when n < min_chunk).
inline void parallel_for(int64_t n, FnRef<void(int64_t, int64_t)> fn, int64_t min_chunk = 1) {
  int parts = n >= 2 * min_chunk ? num_threads() : 1;
  parallel_for_parts(n, parts, [&](int, int64_t b, int64_t e) { fn(b, e); });
}

/// Scratch memory of this thread, at least `nbytes`, 64-byte aligned: grown
/// when too small and kept, so steady-state kernels do not allocate. Each use
/// has its own block, valid until the next call for that use on this thread.
/// A recurrence keeps a whole sequence's values in `sequence` (on the calling thread) and
/// one step's in `step` (on each thread of its pool).
enum class Scratch { partial_sums, kernel, sequence, step, count };
void* thread_scratch(Scratch use, std::size_t nbytes);

/// A parallel reduction into `size` values: [0, n) is split into `parts`; each part
/// accumulates with fn(begin, end, buffer) into its own zeroed buffer, and
/// out[i] is the sum of the buffers, added in part order (deterministic for a
/// given thread count).
template <class T>
void parallel_sum(int64_t n, int parts, int64_t size, T* out, FnRef<void(int64_t, int64_t, T*)> fn) {
  parts = std::max(parts, 1);
  const std::size_t count = static_cast<std::size_t>(size * parts);
  T* base = static_cast<T*>(thread_scratch(Scratch::partial_sums, count * sizeof(T)));
  std::fill(base, base + count, T(0));
  parallel_for_parts(n, parts, [&](int part, int64_t b, int64_t e) { fn(b, e, base + part * size); });
  for (int64_t i = 0; i < size; ++i) {
    T s = 0;
    for (int part = 0; part < parts; ++part) s += base[part * size + i];
    out[i] = s;
  }
}

}  // namespace kiln::cpu

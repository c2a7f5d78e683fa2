#include "cpu/parallel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace kiln::cpu {
namespace {

// Workers spin briefly before sleeping: a training step opens dozens of
// parallel regions a few hundred microseconds apart, and waking a sleeping
// thread through the kernel costs tens of microseconds each time. The spin is
// bounded (kSpin), so an idle pool costs nothing.
constexpr auto kSpin = std::chrono::microseconds(200);

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Spins until pred() or the spin budget runs out; returns pred().
template <class Pred>
bool spin_until(Pred pred) {
  const auto deadline = std::chrono::steady_clock::now() + kSpin;
  while (true) {
    for (int i = 0; i < 64; ++i) {
      if (pred()) return true;
      cpu_relax();
    }
    if (std::chrono::steady_clock::now() >= deadline) return pred();
  }
}

class Pool {
 public:
  explicit Pool(int workers) {
    for (int i = 0; i < workers; ++i) threads_.emplace_back([this, i] { loop(i + 1); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> l(mu_);
      stop_.store(true);
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  int size() const { return static_cast<int>(threads_.size()) + 1; }

  void run(int parts, const std::function<void(int)>& task) {
    std::unique_lock<std::mutex> run_lock(run_mu_);  // one parallel region at a time
    task_ = &task;
    parts_ = parts;
    error_ = nullptr;
    pending_.store(parts - 1, std::memory_order_relaxed);
    bool wake;
    {
      // Under mu_, so a worker about to sleep either sees the new generation or is counted.
      std::lock_guard<std::mutex> l(mu_);
      generation_.fetch_add(1, std::memory_order_release);
      wake = sleepers_ > 0;
    }
    if (wake) cv_.notify_all();
    try {
      task(0);
    } catch (...) {
      std::lock_guard<std::mutex> l(mu_);
      if (!error_) error_ = std::current_exception();
    }
    auto done = [&] { return pending_.load(std::memory_order_acquire) == 0; };
    if (!spin_until(done)) {
      std::unique_lock<std::mutex> l(mu_);
      done_cv_.wait(l, done);
    }
    task_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void loop(int index) {
    uint64_t seen = 0;
    while (true) {
      auto news = [&] { return stop_.load(std::memory_order_acquire) || generation_.load(std::memory_order_acquire) != seen; };
      if (!spin_until(news)) {
        std::unique_lock<std::mutex> l(mu_);
        ++sleepers_;
        cv_.wait(l, news);
        --sleepers_;
      }
      if (stop_.load(std::memory_order_acquire)) return;
      seen = generation_.load(std::memory_order_acquire);
      if (index >= parts_) continue;
      try {
        (*task_)(index);
      } catch (...) {
        std::lock_guard<std::mutex> l(mu_);
        if (!error_) error_ = std::current_exception();
      }
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> l(mu_);  // pairs with the caller's check under mu_
        done_cv_.notify_one();
      }
    }
  }

  std::vector<std::thread> threads_;
  std::mutex mu_, run_mu_;
  std::condition_variable cv_, done_cv_;
  const std::function<void(int)>* task_ = nullptr;
  int parts_ = 0;
  int sleepers_ = 0;  // guarded by mu_
  std::atomic<int> pending_{0};
  std::atomic<uint64_t> generation_{0};
  std::atomic<bool> stop_{false};
  std::exception_ptr error_;
};

int configured_threads() {
  if (const char* e = std::getenv("KILN_NUM_THREADS")) {
    int n = std::atoi(e);
    if (n > 0) return n;
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

Pool& pool() {
  static Pool* p = new Pool(configured_threads() - 1);  // leaked: must outlive static destructors
  return *p;
}

}  // namespace

int num_threads() { return pool().size(); }

void parallel_for_parts(int64_t n, int parts, const std::function<void(int, int64_t, int64_t)>& fn) {
  parts = std::max(1, std::min<int>(parts, pool().size()));
  if (n <= 0) return;
  if (parts > n) parts = static_cast<int>(n);
  if (parts <= 1) {
    fn(0, 0, n);
    return;
  }
  pool().run(parts, [&](int part) {
    const int64_t b = n * part / parts, e = n * (part + 1) / parts;
    fn(part, b, e);
  });
}

}  // namespace kiln::cpu

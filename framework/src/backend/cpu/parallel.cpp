#include "backend/cpu/parallel.h"

#include "backend/cpu/denormals.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <mutex>
#include <new>
#include <sched.h>
#include <string>
#include <thread>
#include <vector>

namespace kiln::cpu {
namespace {

// Workers spin briefly before sleeping: a training step opens dozens of
// parallel regions a few hundred microseconds apart, and waking a sleeping
// thread through the kernel costs tens of microseconds each time. The spin is
// bounded (kSpin), so an idle pool costs nothing. With more threads than cores
// (KILN_NUM_THREADS set high) spinning would steal the cores the work needs, so
// the pool then sleeps at once.
constexpr auto kSpin = std::chrono::microseconds(200);
constexpr int kRoundsBeforeYield = 16;  // 16 x 64 pauses: a few microseconds

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Spins until pred() or the spin budget runs out; returns pred(). After the
// first few microseconds it yields between polls, so that when another process
// wants this core (a shared machine, a CI runner), it gets it instead of
// waiting for the spin to end.
template <class Pred>
bool spin_until(Pred pred, bool spin) {
  if (!spin) return pred();
  const auto deadline = std::chrono::steady_clock::now() + kSpin;
  for (int round = 0;; ++round) {
    for (int i = 0; i < 64; ++i) {
      if (pred()) return true;
      cpu_relax();
    }
    if (std::chrono::steady_clock::now() >= deadline) return pred();
    if (round >= kRoundsBeforeYield) std::this_thread::yield();
  }
}

// The cores this process may use: its affinity mask (taskset, a container's
// cpuset) and its cgroup v2 CPU quota (cpu.max, as Docker's --cpus sets it),
// whichever is smaller. hardware_concurrency() counts every core of the
// machine, and a pool larger than the cores it gets only waits for itself.
int available_cores() {
  int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) cores = std::max(1, CPU_COUNT(&set));
  std::ifstream cpu_max("/sys/fs/cgroup/cpu.max");
  std::string quota;
  long long period = 0;
  if (cpu_max >> quota >> period && quota != "max" && period > 0) {
    const long long q = std::atoll(quota.c_str());
    if (q > 0) cores = std::min<int>(cores, static_cast<int>(std::max<long long>(1, (q + period - 1) / period)));
  }
  return cores;
}

class Pool {
 public:
  explicit Pool(int workers)
      : spin_(workers + 1 <= available_cores()) {
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
  void park() { park_.fetch_add(1, std::memory_order_release); }

  void run(int parts, FnRef<void(int)> task) {
    std::unique_lock<std::mutex> run_lock(run_mu_);  // one parallel region at a time
    task_ = &task;  // run() returns only after every part is done with it
    error_ = nullptr;
    pending_.store(parts, std::memory_order_relaxed);
    bool wake;
    uint32_t region;
    {
      // Under mu_, so a worker about to sleep either sees the new generation or is counted.
      std::lock_guard<std::mutex> l(mu_);
      // The part count travels in the same word as the generation, so a worker
      // never pairs one region's generation with another region's part count.
      const uint64_t next = (generation_.load(std::memory_order_relaxed) >> 32) + 1;
      region = static_cast<uint32_t>(next);
      claim_.store(uint64_t(region) << 32, std::memory_order_relaxed);
      generation_.store(next << 32 | static_cast<uint32_t>(parts), std::memory_order_release);
      wake = sleepers_ > 0;
    }
    if (wake) cv_.notify_all();
    // The caller works too, and takes whatever parts no worker has claimed: a
    // worker that the OS has not scheduled yet (its core busy with another
    // process) then costs nothing instead of a scheduler time slice.
    int part;
    while (claim(region, parts, part)) (void)run_part(part);
    auto done = [&] { return pending_.load(std::memory_order_acquire) == 0; };
    if (!spin_until(done, spin_)) {
      std::unique_lock<std::mutex> l(mu_);
      done_cv_.wait(l, done);
    }
    task_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void loop(int index) {
    flush_denormals_on_this_thread();
    uint64_t seen = 0;
    while (true) {
      auto news = [&] { return stop_.load(std::memory_order_acquire) || generation_.load(std::memory_order_acquire) != seen; };
      const uint64_t parked = park_.load(std::memory_order_acquire);
      auto news_or_park = [&] { return news() || park_.load(std::memory_order_acquire) != parked; };
      if (!spin_until(news_or_park, spin_) || !news()) {
        std::unique_lock<std::mutex> l(mu_);
        ++sleepers_;
        cv_.wait(l, news);
        --sleepers_;
      }
      if (stop_.load(std::memory_order_acquire)) return;
      seen = generation_.load(std::memory_order_acquire);
      int part;
      while (claim(static_cast<uint32_t>(seen >> 32), static_cast<int>(static_cast<uint32_t>(seen)), part)) {
        if (run_part(part)) {
          std::lock_guard<std::mutex> l(mu_);  // pairs with the caller's check under mu_
          done_cv_.notify_one();
        }
      }
    }
  }

  // Takes the next unclaimed part of `region`; false when the region is over or
  // every part is taken. Parts go to whoever asks first, caller or worker.
  bool claim(uint32_t region, int parts, int& part) {
    uint64_t c = claim_.load(std::memory_order_acquire);
    while (true) {
      if (static_cast<uint32_t>(c >> 32) != region || static_cast<int>(static_cast<uint32_t>(c)) >= parts)
        return false;
      if (claim_.compare_exchange_weak(c, c + 1, std::memory_order_acq_rel, std::memory_order_acquire)) {
        part = static_cast<int>(static_cast<uint32_t>(c));
        return true;
      }
    }
  }

  // task_ stays valid here: run() waits until every claimed part has finished.
  // True when this was the region's last part to finish.
  bool run_part(int part) {
    try {
      (*task_)(part);
    } catch (...) {
      std::lock_guard<std::mutex> l(mu_);
      if (!error_) error_ = std::current_exception();
    }
    return pending_.fetch_sub(1, std::memory_order_acq_rel) == 1;
  }

  std::vector<std::thread> threads_;
  std::mutex mu_, run_mu_;
  std::condition_variable cv_, done_cv_;
  const FnRef<void(int)>* task_ = nullptr;
  int sleepers_ = 0;  // guarded by mu_
  std::atomic<int> pending_{0};
  std::atomic<uint64_t> generation_{0};  // region count << 32 | the region's part count
  std::atomic<uint64_t> claim_{0};       // region count (low 32 bits) << 32 | the next part to take
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> park_{0};  // bumped by park(): spinning workers go to sleep
  const bool spin_;  // false when the pool has more threads than cores
  std::exception_ptr error_;
};

int configured_threads() {
  if (const char* e = std::getenv("KILN_NUM_THREADS")) {
    int n = std::atoi(e);
    if (n > 0) return n;
  }
  return available_cores();
}

Pool& pool() {
  static Pool* p = new Pool(configured_threads() - 1);  // leaked: must outlive static destructors
  return *p;
}

}  // namespace

int num_threads() { return pool().size(); }

void park_workers() { pool().park(); }

void parallel_for_parts(int64_t n, int parts, FnRef<void(int, int64_t, int64_t)> fn) {
  FlushDenormals flush;  // every part runs in the workers' mode, the caller's included
  parts = std::max(1, std::min<int>(parts, pool().size()));
  if (n <= 0) return;
  if (parts > n) parts = static_cast<int>(n);
  if (parts <= 1) {
    fn(0, 0, n);
    return;
  }
  auto part_of = [&](int part) {
    const int64_t b = n * part / parts, e = n * (part + 1) / parts;
    fn(part, b, e);
  };
  pool().run(parts, part_of);
}

void* thread_scratch(Scratch use, std::size_t nbytes) {
  struct Block {
    void* data = nullptr;
    std::size_t size = 0;
    ~Block() { std::free(data); }
  };
  thread_local Block blocks[static_cast<int>(Scratch::count)];
  Block& b = blocks[static_cast<int>(use)];
  if (nbytes > b.size) {
    const std::size_t size = (std::max<std::size_t>(nbytes, 2 * b.size) + 63) / 64 * 64;
    void* fresh = std::aligned_alloc(64, size);
    if (!fresh) throw std::bad_alloc();
    std::free(b.data);
    b.data = fresh;
    b.size = size;
  }
  return b.data;
}

}  // namespace kiln::cpu

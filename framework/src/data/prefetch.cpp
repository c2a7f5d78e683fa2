// Dataset::prefetch: a producer thread fills a bounded queue ahead of the consumer.
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "kiln/data/dataset.h"
#include "kiln/core/error.h"

namespace kiln {

namespace {
// Owns the producer thread. The consumer's pull closure holds the only
// shared_ptr, so destroying the iterator (e.g. `break` out of a range-for)
// runs ~Prefetcher, which sets stop, wakes the producer and joins it. The
// producer holds no reference back, so there is no cycle and no leak.
class Prefetcher {
 public:
  Prefetcher(Dataset::Pull upstream, std::size_t capacity) : capacity_(capacity) {
    // Started last, once every member it uses exists.
    worker_ = std::thread([this, up = std::move(upstream)]() mutable { produce(up); });
  }
  Prefetcher(const Prefetcher&) = delete;
  Prefetcher& operator=(const Prefetcher&) = delete;

  ~Prefetcher() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    not_full_.notify_all();
    // If the producer is inside an upstream pull, this waits for that one pull.
    worker_.join();
  }

  std::optional<Element> next() {
    std::unique_lock<std::mutex> lock(mu_);
    not_empty_.wait(lock, [&] { return !queue_.empty() || finished_; });
    if (!queue_.empty()) {
      Element e = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      not_full_.notify_one();
      return e;
    }
    if (error_) {
      // Rethrown once; the pass then ends, as after any other error.
      std::exception_ptr err = std::exchange(error_, nullptr);
      std::rethrow_exception(err);
    }
    return std::nullopt;
  }

 private:
  void produce(Dataset::Pull& up) {
    try {
      while (true) {
        {
          std::unique_lock<std::mutex> lock(mu_);
          not_full_.wait(lock, [&] { return stop_ || queue_.size() < capacity_; });
          if (stop_) break;
        }
        std::optional<Element> e = up();  // unlocked: upstream work overlaps the consumer
        std::lock_guard<std::mutex> lock(mu_);
        if (!e) break;
        queue_.push_back(std::move(*e));
        not_empty_.notify_one();
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu_);
      error_ = std::current_exception();
    }
    up = nullptr;  // release upstream (nested prefetch threads, caches) on this thread
    {
      std::lock_guard<std::mutex> lock(mu_);
      finished_ = true;
    }
    not_empty_.notify_all();
  }

  const std::size_t capacity_;
  std::mutex mu_;
  std::condition_variable not_empty_, not_full_;
  std::deque<Element> queue_;
  std::exception_ptr error_;
  bool finished_ = false;
  bool stop_ = false;
  std::thread worker_;
};
}  // namespace

Dataset Dataset::prefetch(int64_t buffer_size) const {
  if (buffer_size == AUTOTUNE) buffer_size = 2;  // enough to overlap one step of training with the next batch
  if (buffer_size < 1)
    throw ValueError("Dataset.prefetch: buffer_size must be a positive integer or Dataset::AUTOTUNE (-1), but "
                     "received buffer_size=" + std::to_string(buffer_size));
  auto up = factory_;
  const auto capacity = static_cast<std::size_t>(buffer_size);
  auto factory = [up, capacity]() -> Pull {
    auto p = std::make_shared<Prefetcher>(up(), capacity);
    return [p]() { return p->next(); };
  };
  return Dataset(std::move(factory), cardinality_);
}

}  // namespace kiln

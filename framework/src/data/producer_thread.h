#pragma once
// Private: a worker thread that pulls values ahead of their consumer into a
// bounded queue (Dataset::prefetch, a GPU model's batches). Destroying it sets
// stop, wakes the worker and joins it; a worker inside an upstream pull
// finishes that one pull first. The upstream is released on the worker's
// thread, so what it owns (nested prefetch threads, caches) ends there.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

namespace kiln::data {

template <class T>
class ProducerThread {
 public:
  using Pull = std::function<std::optional<T>()>;

  ProducerThread(Pull upstream, std::size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {
    // Started last, once every member it uses exists.
    worker_ = std::thread([this, up = std::move(upstream)]() mutable { produce(up); });
  }
  ProducerThread(const ProducerThread&) = delete;
  ProducerThread& operator=(const ProducerThread&) = delete;
  ~ProducerThread() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    not_full_.notify_all();
    worker_.join();
  }

  /// The next value, std::nullopt at the end. What the upstream threw comes
  /// after the values made before it, once; the pass then ends.
  std::optional<T> next() {
    std::unique_lock<std::mutex> lock(mu_);
    not_empty_.wait(lock, [&] { return !queue_.empty() || finished_; });
    if (!queue_.empty()) {
      T v = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      not_full_.notify_one();
      return v;
    }
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
    return std::nullopt;
  }

 private:
  void produce(Pull& up) {
    try {
      while (true) {
        {
          std::unique_lock<std::mutex> lock(mu_);
          not_full_.wait(lock, [&] { return stop_ || queue_.size() < capacity_; });
          if (stop_) break;
        }
        std::optional<T> v = up();  // unlocked: upstream work overlaps the consumer
        std::lock_guard<std::mutex> lock(mu_);
        if (!v) break;
        queue_.push_back(std::move(*v));
        not_empty_.notify_one();
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu_);
      error_ = std::current_exception();
    }
    up = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      finished_ = true;
    }
    not_empty_.notify_all();
  }

  const std::size_t capacity_;
  std::mutex mu_;
  std::condition_variable not_empty_, not_full_;
  std::deque<T> queue_;
  std::exception_ptr error_;
  bool finished_ = false;
  bool stop_ = false;
  std::thread worker_;
};

}  // namespace kiln::data

// A replayed training step allocates nothing on the heap: the trace owns every
// buffer (placed by the memory plan), the optimizer's step is recorded as its
// kernels with the step sizes refreshed in place, and the CPU kernels and the
// thread pool take their work without copying it into std::functions.
#include <doctest/doctest.h>
#include <kiln/kiln.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "sanitizers.h"

namespace k = kiln;

// AddressSanitizer owns operator new (it pairs each allocation with its
// release); the counting replacement is left to the normal build.
#ifndef KILN_TEST_ASAN
namespace {
std::atomic<bool> g_counting{false};
std::atomic<long> g_allocations{0};
void* counted(std::size_t n) {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void* counted_aligned(std::size_t n, std::align_val_t a) {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1, std::memory_order_relaxed);
  const std::size_t al = static_cast<std::size_t>(a);
  if (void* p = std::aligned_alloc(al, (n + al - 1) / al * al)) return p;
  throw std::bad_alloc();
}
}  // namespace

void* operator new(std::size_t n) { return counted(n); }
void* operator new[](std::size_t n) { return counted(n); }
void* operator new(std::size_t n, std::align_val_t a) { return counted_aligned(n, a); }
void* operator new[](std::size_t n, std::align_val_t a) { return counted_aligned(n, a); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
#else
namespace {
std::atomic<bool> g_counting{false};
std::atomic<long> g_allocations{0};
}  // namespace
#endif

namespace {

/// Counts the heap allocations each replay of a function makes.
struct ReplayCounter {
  std::vector<long> per_replay;
  long start = 0;
  std::function<void(bool)> observer() {
    return [this](bool starting) {
      if (starting) {
        start = g_allocations.load();
        g_counting = true;
      } else {
        g_counting = false;
        per_replay.push_back(g_allocations.load() - start);
      }
    };
  }
};

/// A Sequential model's training step, written as the guide writes a custom loop.
template <class Model, class Opt>
auto train_step(Model& model, Opt& opt) {
  return [&model, &opt](const k::Tensor& x, const k::Tensor& y) {
    k::GradientTape tape;
    k::Tensor logits = model(x, true);
    k::Tensor loss = k::mean(k::losses::sparse_categorical_crossentropy(y, logits, true));
    auto vars = model.trainable_variables();
    opt->apply(tape.gradient(loss, vars), vars);
    return loss;
  };
}

}  // namespace

TEST_CASE("replay: a traced training step of a CNN allocates nothing on the heap, for every fused optimizer") {
#ifdef KILN_TEST_ASAN
  MESSAGE("not counted under AddressSanitizer, whose operator new this test cannot replace");
  return;
#endif
  for (std::string name : {"sgd", "adam", "rmsprop", "adamw"}) {
    CAPTURE(name);
    k::clear_session();
    k::random::set_seed(3);
    k::Sequential model({k::layers::Input({12, 12, 1}), k::layers::Conv2D(8, 3, {.activation = "relu"}),
                         k::layers::MaxPooling2D(), k::layers::Flatten(), k::layers::Dense(16, {.activation = "relu"}),
                         k::layers::Dense(10)});
    auto opt = k::optimizers::get(name);
    ReplayCounter counter;
    auto step = k::function(train_step(model, opt), {.name = "train_step", .replay_observer = counter.observer()});
    k::Tensor x = k::random::normal({8, 12, 12, 1}, 0, 1, k::DType::float32, 1);
    k::Tensor y = k::Tensor(std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7}, k::Shape({8}));
    std::vector<float> losses;
    for (int i = 0; i < 5; ++i) losses.push_back(step(x, y).item<float>());
    CHECK(step.tracing_count() == 1);
    // The first call traces without computing, then replays like the other
    // four; that first replay is the kernels' first run, which may grow their
    // per-thread scratch buffers once. Every later replay allocates nothing.
    // The counter sees every thread of the process, and another one (a runtime
    // library's) may allocate once while a replay is counted; an allocation on
    // the replay path would come back in each of the four.
    REQUIRE(counter.per_replay.size() == 5);
    long later = 0;
    for (std::size_t i = 1; i < counter.per_replay.size(); ++i) later += counter.per_replay[i];
    INFO("allocations in replays 2 to 5: ", counter.per_replay[1], " ", counter.per_replay[2], " ",
         counter.per_replay[3], " ", counter.per_replay[4]);
    CHECK(later <= 1);
    CHECK(losses.back() < losses.front());  // the replays did train
    CHECK(opt->iterations() == 5);
  }
}

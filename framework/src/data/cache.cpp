// Dataset::cache: the first complete pass is kept in memory and replayed.
#include <memory>
#include <mutex>
#include <utility>

#include "kiln/data/dataset.h"

namespace kiln {

namespace {
struct CacheState {
  std::mutex mu;
  // Set once, by the first pass that reaches the end; immutable afterwards.
  std::shared_ptr<const std::vector<Element>> elements;
};
}  // namespace

Dataset Dataset::cache() const {
  auto state = std::make_shared<CacheState>();
  auto up = factory_;
  auto factory = [up, state]() -> Pull {
    std::shared_ptr<const std::vector<Element>> stored;
    {
      std::lock_guard<std::mutex> lock(state->mu);
      stored = state->elements;
    }
    if (stored) {
      return [stored, i = std::size_t{0}]() mutable -> std::optional<Element> {
        if (i >= stored->size()) return std::nullopt;
        return (*stored)[i++];
      };
    }
    // Filling pass. Passes running at the same time each record their own
    // copy; the first to finish is kept. A pass abandoned early is dropped.
    return [pull = up(), state, recorded = std::make_shared<std::vector<Element>>(),
            done = false]() mutable -> std::optional<Element> {
      if (done) return std::nullopt;
      std::optional<Element> e = pull();
      if (e) {
        recorded->push_back(*e);
        return e;
      }
      done = true;
      pull = nullptr;
      std::lock_guard<std::mutex> lock(state->mu);
      if (!state->elements) state->elements = std::move(recorded);
      return std::nullopt;
    };
  };
  return Dataset(std::move(factory), cardinality_);
}

}  // namespace kiln

// Dataset::prefetch: a producer thread fills a bounded queue ahead of the consumer.
#include <memory>
#include <string>

#include "data/producer_thread.h"
#include "kiln/data/dataset.h"
#include "kiln/core/error.h"

namespace kiln {

Dataset Dataset::prefetch(int64_t buffer_size) const {
  if (buffer_size == AUTOTUNE) buffer_size = 2;  // enough to overlap one step of training with the next batch
  if (buffer_size < 1)
    throw ValueError("Dataset.prefetch: buffer_size must be a positive integer or Dataset::AUTOTUNE (-1), but "
                     "received buffer_size=" + std::to_string(buffer_size));
  auto up = factory_;
  const auto capacity = static_cast<std::size_t>(buffer_size);
  auto factory = [up, capacity]() -> Pull {
    // The pull closure holds the only reference, so destroying the iterator
    // (a `break` out of a range-for) stops and joins the thread.
    auto p = std::make_shared<data::ProducerThread<Element>>(up(), capacity);
    return [p]() { return p->next(); };
  };
  return Dataset(std::move(factory), cardinality_);
}

}  // namespace kiln

// A GPU model's batches, made and uploaded by a worker thread.
#include "training/device_prefetch.h"

#include <memory>
#include <utility>

#include "data/producer_thread.h"

namespace kiln::training {

Batch batch_to(const Batch& b, Device d) {
  if (d.is_cpu()) {
    bool all_cpu = true;
    for (const auto& t : b.x) all_cpu = all_cpu && t.device().is_cpu();
    for (const auto& t : b.y) all_cpu = all_cpu && t.device().is_cpu();
    if (all_cpu) return b;
  }
  Batch o;
  for (const auto& t : b.x) o.x.push_back(t.to(d));
  for (const auto& t : b.y) o.y.push_back(t.to(d));
  if (b.sample_weight.defined()) o.sample_weight = b.sample_weight.to(d);
  return o;
}

BatchPull prefetch_to_device(BatchPull pull, Device device, std::optional<int> limit, std::size_t depth) {
  // The limit is counted on the worker, so a batch past it is never made.
  BatchPull upstream = [pull = std::move(pull), device, limit, made = 0]() mutable -> std::optional<Batch> {
    if (limit && made >= *limit) return std::nullopt;
    ++made;
    std::optional<Batch> b = pull();
    if (!b) return std::nullopt;
    return batch_to(*b, device);
  };
  auto worker = std::make_shared<data::ProducerThread<Batch>>(std::move(upstream), depth);
  return [worker]() { return worker->next(); };
}

}  // namespace kiln::training

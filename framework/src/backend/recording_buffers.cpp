// The buffers of a Recording: which ones its nodes write, and the copy a
// replay makes of a buffer written in place that something else now shares.
#include "backend/recording.h"

namespace kiln::backend {

void Recording::writes_in_place(const Tensor& t) {
  for (const auto& w : in_place_)
    if (w.tensor.impl() == t.impl()) return;
  in_place_.push_back({t, 1});
}

void Recording::seal() {
  for (auto& w : in_place_) w.holders = w.tensor.impl()->storage.use_count();
  written_.clear();
  for (const auto& n : nodes_)
    for (const auto& o : n.outputs) written_.insert(o.impl()->storage.get());
}

bool Recording::may_write(const Storage* s) const {
  if (written_.count(s)) return true;
  for (const auto& w : in_place_)
    if (w.tensor.impl()->storage.get() == s) return true;
  return false;
}

void Recording::replay(std::size_t begin, std::size_t end) {
  for (auto& w : in_place_) {
    auto& storage = w.tensor.impl()->storage;
    if (storage.use_count() <= w.holders) continue;
    Tensor fresh = Tensor::empty(w.tensor.shape(), w.tensor.dtype(), w.tensor.device());
    backend_for(w.tensor.device()).copy_from(w.tensor, fresh);
    storage = fresh.impl()->storage;
  }
  run(begin, end);
}

}  // namespace kiln::backend

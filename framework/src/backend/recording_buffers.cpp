// The buffers of a Recording: which ones its nodes write, the copy a replay
// makes of a buffer written in place that something else now shares, and one
// buffer's value computed before the trace is done.
#include "backend/recording.h"

#include <set>

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

void Recording::compute_now(const Tensor& t) {
  // The nodes that write t's buffer, then those that write what they read, and so on.
  std::set<const Storage*> needed{t.impl()->storage.get()};
  std::vector<std::size_t> chain;
  for (std::size_t j = nodes_.size(); j-- > 0;) {
    const Node& n = nodes_[j];
    if (n.host && n.opaque) continue;  // bookkeeping that must run once per replay, not now
    bool writes = false;
    for (const auto& o : n.outputs) writes = writes || needed.count(o.impl()->storage.get());
    if (!writes) continue;
    chain.push_back(j);
    for (const auto& in : n.inputs) needed.insert(in.impl()->storage.get());
  }
  RecordingPause unrecorded;
  for (auto j = chain.rbegin(); j != chain.rend(); ++j) nodes_[*j].run();
}

}  // namespace kiln::backend

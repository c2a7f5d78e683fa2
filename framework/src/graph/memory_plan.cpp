// The static memory plan: buffers a trace allocated for its intermediates are
// given slots in a few shared blocks, by liveness, so a replay touches as
// little memory as the longest-lived set of values needs (and stays in cache
// where eager execution, freeing and reallocating, would also have).
#include <algorithm>
#include <map>

#include "core/tensor_impl.h"
#include "graph/passes.h"

namespace kiln::graph {

using backend::Node;
using backend::Recording;

namespace {

struct Interval {
  std::shared_ptr<Storage> storage;
  std::size_t first = 0, last = 0;
  bool written_first = false;  // its first access only writes it
  bool excluded = false;
};

std::size_t round_up(std::size_t n) { return (n + 63) / 64 * 64; }

/// Each buffer's first and last access, in node order.
std::map<const Storage*, Interval> intervals_of(const Recording& rec) {
  std::map<const Storage*, Interval> iv;
  const auto& nodes = rec.nodes();
  for (std::size_t j = 0; j < nodes.size(); ++j) {
    auto touch = [&](const Tensor& t, bool write) {
      const auto& sp = t.impl()->storage;
      auto [it, fresh] = iv.try_emplace(sp.get());
      Interval& i = it->second;
      if (fresh) {
        i = {sp, j, j, write, false};
      } else {
        i.last = j;
        if (i.first == j && !write) i.written_first = false;  // read and written by its first node
      }
    };
    for (const auto& t : nodes[j].inputs) touch(t, false);
    for (const auto& t : nodes[j].outputs) touch(t, true);
    // A variable copy's buffer may be the variable itself (see alias_variable_reads).
    if (nodes[j].type == "ReadVariableOp")
      for (const auto& t : nodes[j].outputs) iv[t.impl()->storage.get()].excluded = true;
  }
  return iv;
}

}  // namespace

std::size_t plan_memory(Recording& rec, const std::vector<Tensor>& keep_apart) {
  for (const auto& n : rec.nodes())
    if (n.host && n.opaque) return 0;  // it may hold any buffer
  auto iv = intervals_of(rec);
  for (const auto& t : keep_apart)
    if (t.defined())
      if (auto it = iv.find(t.impl()->storage.get()); it != iv.end()) it->second.excluded = true;
  std::vector<Interval*> order;
  for (auto& [s, i] : iv)
    if (!i.excluded && i.written_first && rec.allocated_here(i.storage) && i.storage->data) order.push_back(&i);
  std::sort(order.begin(), order.end(), [](const Interval* a, const Interval* b) { return a->first < b->first; });

  struct Slot {
    std::size_t bytes;
    Device device;
    std::size_t busy_until;  // last node index that uses it
    std::vector<Interval*> users;
  };
  std::vector<Slot> slots;
  for (Interval* i : order) {
    const std::size_t need = round_up(i->storage->nbytes);
    Slot* best = nullptr;
    for (auto& s : slots)  // the smallest free slot that fits
      if (s.busy_until < i->first && s.device == i->storage->device && s.bytes >= need && (!best || s.bytes < best->bytes))
        best = &s;
    if (!best) best = &slots.emplace_back(Slot{need, i->storage->device, 0, {}});
    best->busy_until = i->last;
    best->users.push_back(i);
  }
  std::size_t saved = 0;
  for (auto& s : slots) {
    if (s.users.size() < 2) continue;  // nothing to share
    auto block = backend::backend_for(s.device).allocate(s.bytes);
    for (Interval* i : s.users) {
      Storage& st = *i->storage;
      if (st.deleter) st.deleter(st.data, st.nbytes, st.device);
      st.data = block->data;
      st.deleter = nullptr;  // the block is freed with the recording
      saved += round_up(st.nbytes);
    }
    saved -= s.bytes;
    rec.keep(std::move(block));
  }
  return saved;
}

}  // namespace kiln::graph

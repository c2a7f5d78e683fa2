// The static memory plan: buffers a trace allocated for its intermediates are
// given places in one block per device, by liveness, so a replay touches as
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

/// Where each buffer goes in one arena per device: the largest first, each at
/// the lowest offset that no buffer alive at the same time covers. Shared
/// fixed-size slots (a buffer in the first free slot that fits) leave a slot
/// at the size of its first user: a training step's plan then held 2.1 times
/// the bytes ever alive at once, where this comes within a few percent of it.
struct Placement {
  Interval* interval;
  std::size_t offset, bytes;
};

std::size_t place(std::vector<Interval*> group, std::vector<Placement>& out) {
  std::stable_sort(group.begin(), group.end(), [](const Interval* a, const Interval* b) {
    const std::size_t sa = round_up(a->storage->nbytes), sb = round_up(b->storage->nbytes);
    return sa != sb ? sa > sb : a->first < b->first;
  });
  std::vector<Placement> placed;
  std::size_t arena = 0;
  std::vector<const Placement*> overlapping;
  for (Interval* i : group) {
    const std::size_t need = round_up(i->storage->nbytes);
    overlapping.clear();
    for (const auto& p : placed)  // alive at the same time (a node's inputs and outputs never share)
      if (p.interval->first <= i->last && i->first <= p.interval->last) overlapping.push_back(&p);
    std::sort(overlapping.begin(), overlapping.end(),
              [](const Placement* a, const Placement* b) { return a->offset < b->offset; });
    std::size_t offset = 0;
    for (const Placement* p : overlapping) {
      if (p->offset >= offset + need) break;  // the gap below p fits
      offset = std::max(offset, p->offset + p->bytes);
    }
    placed.push_back({i, offset, need});
    arena = std::max(arena, offset + need);
  }
  out.insert(out.end(), placed.begin(), placed.end());
  return arena;
}

}  // namespace

std::size_t plan_memory(Recording& rec, const std::vector<Tensor>& keep_apart) {
  for (const auto& n : rec.nodes())
    if (n.host && n.opaque) return 0;  // it may hold any buffer
  auto iv = intervals_of(rec);
  for (const auto& t : keep_apart)
    if (t.defined())
      if (auto it = iv.find(t.impl()->storage.get()); it != iv.end()) it->second.excluded = true;
  std::vector<std::pair<Device, std::vector<Interval*>>> by_device;
  for (auto& entry : iv) {
    Interval& i = entry.second;
    if (i.excluded || !i.written_first || !rec.allocated_here(i.storage) || !i.storage->data) continue;
    auto it = std::find_if(by_device.begin(), by_device.end(), [&](const auto& d) { return d.first == i.storage->device; });
    if (it == by_device.end()) it = by_device.insert(by_device.end(), {i.storage->device, {}});
    it->second.push_back(&i);
  }
  std::size_t saved = 0;
  for (auto& [device, group] : by_device) {
    if (group.size() < 2) continue;  // nothing to share
    std::vector<Placement> placed;
    const std::size_t arena = place(group, placed);
    auto block = backend::backend_for(device).allocate(arena);
    for (const auto& p : placed) {
      Storage& st = *p.interval->storage;
      if (st.deleter) st.deleter(st.data, st.nbytes, st.device);
      st.data = static_cast<char*>(block->data) + p.offset;
      st.deleter = nullptr;  // the block is freed with the recording
      saved += p.bytes;
    }
    saved -= std::min(saved, arena);
    rec.keep(std::move(block));
  }
  return saved;
}

}  // namespace kiln::graph

#include "graph/subgraph.h"

#include <iterator>
#include <optional>
#include <unordered_map>
#include <utility>

#include "backend/backend.h"
#include "core/tensor_impl.h"
#include "core/tracing.h"
#include "kiln/core/error.h"
#include "kiln/graph/function.h"
#include "kiln/ops/array_ops.h"

namespace kiln::graph {

namespace {

/// Moves the entries each tape recorded since `marks` was taken into slices.
std::vector<TapeSlice> take_slices(const std::vector<std::pair<TapeState*, std::size_t>>& marks) {
  std::vector<TapeSlice> out;
  for (const auto& [s, n] : marks) {
    TapeSlice slice;
    slice.tape = s;
    if (s->entries.size() > n) {
      auto first = s->entries.begin() + static_cast<std::ptrdiff_t>(n);
      slice.entries.assign(std::make_move_iterator(first), std::make_move_iterator(s->entries.end()));
      s->entries.erase(first, s->entries.end());
    }
    for (const auto& e : slice.entries) {
      for (const auto& in : e.inputs)
        if (autodiff::trackable(in) && s->tracked.count(in.id())) slice.tracked.insert(in.id());
      slice.tracked.insert(e.output_ids.begin(), e.output_ids.end());
    }
    out.push_back(std::move(slice));
  }
  return out;
}

/// The nested-recording lists of the subgraphs being traced on this thread, innermost last.
thread_local std::vector<std::vector<std::shared_ptr<backend::Recording>>*> t_tracing;

struct NestGuard {
  explicit NestGuard(Subgraph& g) { t_tracing.push_back(&g.nested); }
  ~NestGuard() { t_tracing.pop_back(); }
  NestGuard(const NestGuard&) = delete;
  NestGuard& operator=(const NestGuard&) = delete;
};

std::size_t recorded_entries() {
  std::size_t n = 0;
  for (const TapeState* t : active_tapes())
    if (t->recording) n += t->entries.size();
  return n;
}

}  // namespace

Subgraph trace_subgraph(const std::function<std::vector<Tensor>()>& fn) {
  Subgraph g;
  std::vector<std::pair<TapeState*, std::size_t>> marks;
  for (TapeState* s : active_tapes())
    if (s->recording) marks.emplace_back(s, s->entries.size());
  g.first_id = next_tensor_id();
  try {
    NestGuard nest(g);
    backend::RecordingScope scope(*g.rec, false);
    g.outputs = fn();
  } catch (...) {
    take_slices(marks);  // the failed subgraph leaves nothing on the tapes
    throw;
  }
  g.slices = take_slices(marks);
  if (!t_tracing.empty()) {
    auto& parent = *t_tracing.back();
    parent.push_back(g.rec);
    parent.insert(parent.end(), g.nested.begin(), g.nested.end());
  }
  for (const auto& t : g.outputs)
    if (!t.defined()) throw ValueError("kiln control flow: a branch or loop body returned an undefined tensor");
  return g;
}

std::vector<Tensor> written_buffers(const Subgraph& g) {
  std::unordered_set<const Storage*> seen;
  std::vector<Tensor> out;
  auto scan = [&](const backend::Recording& rec) {
    for (const auto& n : rec.nodes())
      for (const auto& o : n.outputs)
        if (o.id() >= g.first_id && seen.insert(o.impl()->storage.get()).second) out.push_back(o);
  };
  scan(*g.rec);
  for (const auto& r : g.nested) scan(*r);
  return out;
}

std::vector<Tensor> slice_captures(const TapeSlice& s, const std::unordered_set<uint64_t>& exclude) {
  std::unordered_set<uint64_t> made, seen;
  for (const auto& e : s.entries) made.insert(e.output_ids.begin(), e.output_ids.end());
  std::vector<Tensor> out;
  for (const auto& e : s.entries)
    for (const auto& in : e.inputs) {
      const uint64_t id = in.id();
      if (!autodiff::trackable(in) || !s.tracked.count(id) || made.count(id) || exclude.count(id)) continue;
      if (seen.insert(id).second) out.push_back(in);
    }
  return out;
}

std::vector<Tensor> slice_vjp(const TapeSlice& s, const std::vector<Tensor>& outputs, const std::vector<Tensor>& dys,
                              const std::vector<Tensor>& sources) {
  TapeState tmp;
  tmp.recording = false;  // run_backward then leaves the count of recording tapes alone
  tmp.entries = s.entries;  // copied: a persistent tape may ask again
  tmp.tracked = s.tracked;
  for (const auto& src : sources) tmp.tracked.insert(src.id());
  std::vector<Seed> seeds;
  for (std::size_t k = 0; k < outputs.size() && k < dys.size(); ++k) {
    if (!dys[k].defined() || !autodiff::trackable(outputs[k])) continue;
    tmp.tracked.insert(outputs[k].id());
    seeds.emplace_back(outputs[k], dys[k]);
  }
  std::vector<Source> srcs(sources.begin(), sources.end());
  const std::size_t before = recorded_entries();
  auto grads = run_backward(tmp, seeds, srcs, UnconnectedGradients::Zero, false);
  // Another tape recording this product would hold ops on the subgraph's
  // intermediates, whose own gradients live in the subgraph's slices, not on it.
  if (recorded_entries() != before)
    throw RuntimeError(
        "kiln::cond / kiln::while_loop: a higher-order gradient (a GradientTape recording another tape's "
        "gradient) through control flow in a traced kiln::function is not supported; compute it eagerly "
        "(kiln::config::run_functions_eagerly(true)) or outside the kiln::function");
  std::vector<Tensor> out;
  for (std::size_t i = 0; i < sources.size(); ++i) out.push_back(grads[i] ? *grads[i] : zeros_like(sources[i]));
  return out;
}

void push_entry(TapeState* tape, const char* op, const std::vector<Tensor>& inputs,
                const std::vector<Tensor>& outputs, autodiff::BackwardFn backward) {
  TapeEntry e{op, inputs, {}, {}, {}, std::move(backward), {}};
  for (const auto& o : outputs) {
    e.output_ids.push_back(o.id());
    e.output_shapes.push_back(o.shape());
    e.output_dtypes.push_back(o.dtype());
    if (autodiff::trackable(o)) tape->tracked.insert(o.id());
  }
  tape->entries.push_back(std::move(e));
}

std::vector<Tensor> external_reads(const backend::Recording& rec, const std::vector<Tensor>& then_read) {
  std::unordered_set<const Storage*> written, seen;
  std::vector<Tensor> out;
  for (const auto& n : rec.nodes()) {
    for (const auto& in : n.inputs) {
      const Storage* s = in.impl()->storage.get();
      if (!written.count(s) && seen.insert(s).second) out.push_back(in);
    }
    for (const auto& o : n.outputs) written.insert(o.impl()->storage.get());
  }
  for (const auto& t : then_read) {
    const Storage* s = t.impl()->storage.get();
    if (!written.count(s) && seen.insert(s).second) out.push_back(t);
  }
  return out;
}

void append_unique(std::vector<Tensor>& to, const std::vector<Tensor>& more) {
  std::unordered_set<const Storage*> have;
  for (const auto& t : to) have.insert(t.impl()->storage.get());
  for (const auto& t : more)
    if (have.insert(t.impl()->storage.get()).second) to.push_back(t);
}

std::vector<Tensor> fresh_like(const std::vector<Tensor>& like) {
  backend::RecordingPause unrecorded;
  std::vector<Tensor> out;
  for (const auto& t : like) out.push_back(Tensor::empty(t.shape(), t.dtype(), t.device()));
  return out;
}

void copy_all(const std::vector<Tensor>& src, const std::vector<Tensor>& dst) {
  backend::RecordingPause unrecorded;
  for (std::size_t i = 0; i < src.size() && i < dst.size(); ++i) {
    if (src[i].impl()->storage == dst[i].impl()->storage) continue;
    Tensor d = dst[i];
    backend::backend_for(d.device()).copy_from(src[i], d);
  }
}

bool read_pred(const Tensor& pred) {
  if (pred.device().is_cpu()) {  // the common case, read in place: loops read it every iteration
    const void* p = pred.raw_data();
    switch (pred.dtype()) {
      case DType::bool_: return *static_cast<const bool*>(p);
      case DType::float32: return *static_cast<const float*>(p) != 0;
      case DType::float64: return *static_cast<const double*>(p) != 0;
      case DType::int32: return *static_cast<const int32_t*>(p) != 0;
      case DType::int64: return *static_cast<const int64_t*>(p) != 0;
      case DType::uint8: return *static_cast<const uint8_t*>(p) != 0;
      case DType::int8: return *static_cast<const int8_t*>(p) != 0;
    }
  }
  backend::RecordingPause unrecorded;
  tracing::Scope eager(nullptr, true);
  return pred.item<bool>();
}

std::string specs(const std::vector<Tensor>& ts) {
  std::string out = "[";
  for (std::size_t i = 0; i < ts.size(); ++i)
    out += (i ? ", " : "") + TensorSpec{ts[i].shape(), ts[i].dtype(), ""}.to_string();
  return out + "]";
}

}  // namespace kiln::graph

#pragma once
// Private: the pieces kiln::cond and kiln::while_loop build graph control flow
// from. A subgraph is a branch, loop condition or loop body traced on its own
// (recorded, not run) into a Recording that the enclosing "If" / "While" node
// replays when it chooses to. The tape entries its ops make are moved off the
// active tapes into per-tape slices, from which the control-flow op's own
// gradient rule builds the subgraph's vector-Jacobian product.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "autodiff/tape_state.h"
#include "backend/recording.h"

namespace kiln::graph {

using autodiff::Grads;
using autodiff::Needs;

/// The entries one active tape recorded while a subgraph was traced.
struct TapeSlice {
  TapeState* tape = nullptr;
  std::vector<TapeEntry> entries;
  /// Ids the entries read that the tape tracked, and the ids they made.
  std::unordered_set<uint64_t> tracked;
};

struct Subgraph {
  std::shared_ptr<backend::Recording> rec = std::make_shared<backend::Recording>();
  std::vector<Tensor> outputs;
  std::vector<TapeSlice> slices;  // one per active recording tape, in active_tapes() order
  /// The recordings of control flow traced inside this one (an If's branches), at any depth.
  std::vector<std::shared_ptr<backend::Recording>> nested;
  /// Tensors made while tracing it have this id or a higher one.
  uint64_t first_id = 0;
};

/// Traces `fn` into a new subgraph without running it.
Subgraph trace_subgraph(const std::function<std::vector<Tensor>()>& fn);

/// The buffers the subgraph's nodes, and those of control flow nested in it,
/// write and made themselves (not a variable's or a capture's), deduplicated.
std::vector<Tensor> written_buffers(const Subgraph& g);

/// The tensors the slice's entries read that the tape tracked but no entry of
/// the slice made (a branch's differentiable captures), deduplicated, without `exclude`.
std::vector<Tensor> slice_captures(const TapeSlice& s, const std::unordered_set<uint64_t>& exclude = {});

/// Gradients of `outputs` (seeded with `dys`, undefined ones skipped) with respect
/// to `sources` through the slice's entries; zeros where nothing flows.
std::vector<Tensor> slice_vjp(const TapeSlice& s, const std::vector<Tensor>& outputs, const std::vector<Tensor>& dys,
                              const std::vector<Tensor>& sources);

/// Appends an entry with this rule to `tape`, as autodiff::record does for the active tapes.
void push_entry(TapeState* tape, const char* op, const std::vector<Tensor>& inputs,
                const std::vector<Tensor>& outputs, autodiff::BackwardFn backward);

/// Buffers the recording's nodes, and then `then_read`, read before any of its nodes wrote them.
std::vector<Tensor> external_reads(const backend::Recording& rec, const std::vector<Tensor>& then_read = {});

/// Appends the tensors of `more` whose buffers `to` does not list yet.
void append_unique(std::vector<Tensor>& to, const std::vector<Tensor>& more);

/// New buffers shaped like `like` (not filled).
std::vector<Tensor> fresh_like(const std::vector<Tensor>& like);
/// Copies src[i] into dst[i] with the real backend (a replay's work, unrecorded).
void copy_all(const std::vector<Tensor>& src, const std::vector<Tensor>& dst);
/// A predicate's truth on the host (any one-element tensor; nonzero is true).
bool read_pred(const Tensor& pred);

/// "[TensorSpec(shape=(), dtype=float32), ...]" for error messages.
std::string specs(const std::vector<Tensor>& ts);

}  // namespace kiln::graph

#pragma once
// Private: recording the device work of a trace. While a RecordingScope is
// alive on a thread, backend_for() hands out a decorator that appends each
// backend call to a Recording as a node (its op type, the tensors it reads and
// writes, and a closure holding their handles and its parameters), and also
// runs it. Replaying the Recording re-runs the nodes on the same buffers,
// without the ops' checks, allocation or tape bookkeeping. The graph layer
// reads the nodes to print, export and optimize a trace.
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "backend/backend.h"
#include "core/op_log.h"
#include "core/profiler_events.h"
#include "kiln/core/error.h"

namespace kiln::backend {

/// The parameters of a recorded call that its tensors do not carry, for
/// readers of the graph (an exporter); replays use the closure instead.
struct NodeParams {
  int axis = 0;             // arg_reduce, gather, softmax
  double value = 0;         // fill's value, dropout's rate, batch norm's epsilon, attention's scale
  int64_t depth = 0;        // one_hot
  bool flag_a = false;      // matmul: transpose a; bias_add / conv2d_bias: relu; strided copy: accumulate
  bool flag_b = false;      // matmul: transpose b
  Conv2DParams conv{};
  Pool2DParams pool{};
  // strided_copy: where it reads and writes, and the shape it copies
  int64_t src_offset = 0, dst_offset = 0;
  std::vector<int64_t> src_strides, dst_strides;
  Shape copy_shape;
  bool has_gamma = false, has_beta = false;  // batch_norm_inference's optional inputs
  std::vector<std::string> names;           // a recurrence's activation and recurrent activation
};

class Recording;

/// A subgraph a control-flow node runs (a cond's branch), and the tensors it answers with.
struct Branch {
  std::shared_ptr<Recording> rec;
  std::vector<Tensor> outputs;
};

struct Node {
  /// TensorFlow's name for the op ("MatMul", "Mul", "Dropout").
  std::string type;
  /// What a reader would call it, when more than its type says (a variable's path).
  std::string label;
  std::vector<Tensor> inputs;   // read
  std::vector<Tensor> outputs;  // written
  std::function<void()> run;
  NodeParams params;
  /// The layers whose call() made the node ("model/dense_1"), for messages.
  std::string layer;
  /// What an error of this node at replay is reported with: the innermost
  /// layer's "Exception encountered when calling layer ..." line and arguments.
  std::string error_context, error_arguments;
  /// A control-flow node's subgraphs (an If's true and false branches), for readers of the graph.
  std::vector<Branch> branches;
  /// Host logic that runs at every replay (an optimizer's bookkeeping, a seed
  /// draw). `opaque` ones may read or write tensors they do not list.
  bool host = false;
  bool opaque = false;
  /// A device node whose closure reads a host number afresh at each replay (a
  /// HostScalar's live value): a captured launch would freeze that number.
  bool live = false;
  /// Element-wise nodes (one value out per value in, same positions) carry their op for fusion.
  int unary = -1;
  int binary = -1;
};

/// Fills the node's layer path and error context from the layer call running on this thread.
void set_node_layer(Node& n);
/// Gives `to` the layer path and error context of `from` (a fused node of its parts).
void copy_node_layer(Node& to, const Node& from);

/// Nodes [begin, end) of a Recording that together compute one op a reader
/// knows as a whole (a recurrence over a sequence is one ONNX LSTM): `op`
/// holds that op's type, inputs, outputs, parameters and layer; its run is empty.
struct Composite {
  Node op;
  std::size_t begin = 0, end = 0;
};

class Recording {
 public:
  std::vector<Composite>& composites() { return composites_; }
  const std::vector<Composite>& composites() const { return composites_; }
  Node& add(Node node) {
    if (oplog::logging()) oplog::outside_op("runs " + node.type + " outside an op");
    return nodes_.emplace_back(std::move(node));
  }
  /// Notes that the nodes write `t` (a variable's buffer) in place.
  void writes_in_place(const Tensor& t);
  /// Counts who holds each buffer written in place, and lists every buffer
  /// the nodes write, once the trace is done.
  void seal();
  /// Whether a replay may write `s` (as sealed, or a variable's buffer now).
  bool may_write(const Storage* s) const;
  /// Runs, unrecorded, the nodes recorded so far that t's value depends on.
  void compute_now(const Tensor& t);
  /// Buffers allocated while recording: only these may be given other memory by a plan.
  void note_allocation(const std::shared_ptr<Storage>& s) { allocated_.insert(s); }
  bool allocated_here(const std::shared_ptr<Storage>& s) const { return allocated_.count(s) > 0; }
  /// Keeps `block` alive as long as the recording (memory a plan put buffers in).
  void keep(std::shared_ptr<Storage> block) { kept_.push_back(std::move(block)); }
  /// Runs every node in order. A buffer written in place that something else
  /// now shares (a snapshot taken between calls) is first replaced by a copy,
  /// as an eager assignment does, so the snapshot keeps its values.
  void replay() { replay(0, nodes_.size()); }
  /// Runs nodes [begin, end) only (the first copies as replay() does).
  void replay(std::size_t begin, std::size_t end);
  /// Runs nodes [begin, end) and nothing else.
  /// An error of a node names the layer that recorded it, as the eager call would.
  void run(std::size_t begin, std::size_t end) {
    if (profiler::detail::recording()) return run_profiled(begin, end);
    std::size_t i = begin;
    try {
      for (; i < end && i < nodes_.size(); ++i) nodes_[i].run();
    } catch (const Error& e) {
      rethrow_in_layer_context(nodes_[i], e);
    }
  }
  /// run() with every node timed as a profiler event, named by its op and layer.
  void run_profiled(std::size_t begin, std::size_t end);
  /// Whether the nodes write any buffer in place (a variable).
  bool has_in_place_writes() const { return !in_place_.empty(); }
  std::size_t size() const { return nodes_.size(); }
  std::vector<Node>& nodes() { return nodes_; }
  const std::vector<Node>& nodes() const { return nodes_; }

 private:
  [[noreturn]] static void rethrow_in_layer_context(const Node& n, const Error& e);
  std::vector<Node> nodes_;
  std::vector<Composite> composites_;
  struct InPlace {
    Tensor tensor;
    long holders = 1;  // the buffer's use count when the trace was sealed
  };
  std::vector<InPlace> in_place_;
  std::set<std::weak_ptr<Storage>, std::owner_less<std::weak_ptr<Storage>>> allocated_;
  std::vector<std::shared_ptr<Storage>> kept_;
  std::set<const Storage*> written_;
};

/// Records into `rec` on this thread while alive (nests; the innermost wins).
/// With `execute` false the calls are only recorded, not run (a trace for its
/// graph alone: values are undefined, and host nodes do not run).
class RecordingScope {
 public:
  explicit RecordingScope(Recording& rec, bool execute = true);
  ~RecordingScope();
  RecordingScope(const RecordingScope&) = delete;
  RecordingScope& operator=(const RecordingScope&) = delete;
  struct State;

 private:
  std::unique_ptr<State> state_;
  State* saved_;
};

/// Suspends recording on this thread while alive: what runs inside happens
/// once, now (a variable's initial value, copying arguments into a trace).
class RecordingPause {
 public:
  RecordingPause();
  ~RecordingPause();
  RecordingPause(const RecordingPause&) = delete;
  RecordingPause& operator=(const RecordingPause&) = delete;

 private:
  void* saved_;
};

/// The Recording this thread records into, or null.
Recording* active_recording();

/// Inside a trace that does not execute, computes `t` now, by running the
/// recorded nodes its value depends on (a variable's initial value made by
/// ops in the trace); elsewhere does nothing.
void materialize(const Tensor& t);

/// Marks the nodes recorded while it is alive as one composite op, once
/// finish() names the op's outputs; without finish() (an exception) nothing
/// is marked. Does nothing when this thread is not recording.
class CompositeScope {
 public:
  CompositeScope(std::string type, std::vector<Tensor> inputs, NodeParams params);
  void finish(std::vector<Tensor> outputs);

 private:
  Recording* rec_;
  std::size_t begin_ = 0;
  Node op_;
};

/// What a host node touches. Without `opaque`, it reads only `reads` and
/// writes only `writes`, which lets graph passes move and share buffers around it.
struct HostEffects {
  std::string type = "HostCall";
  std::vector<Tensor> reads;
  std::vector<Tensor> writes;
  bool opaque = true;
  std::vector<Branch> branches;
};

/// Runs `fn` now, unrecorded and with value reads allowed (unless the trace
/// does not execute), and appends it to the active recording as a host node
/// so that every replay runs it again.
void record_host_node(const std::function<void()>& fn, HostEffects effects = {});
/// Runs `fn` now; inside a trace it becomes a host node (record_host_node). For
/// host logic whose values change from call to call (an optimizer step's
/// learning rate, bias corrections and counters, a dropout seed), which a
/// record of its kernels would freeze. Outside a trace nothing is wrapped or copied.
template <class Fn>
void run_as_host_node(Fn&& fn, HostEffects effects = {}) {
  if (!active_recording()) return static_cast<void>(fn());
  record_host_node(std::function<void()>(std::forward<Fn>(fn)), std::move(effects));
}
/// The backend ops should call for `real`: `real` itself, or its recording decorator.
Backend& recorded(Backend& real);

}  // namespace kiln::backend

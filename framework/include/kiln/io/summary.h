#pragma once
// tf.summary for custom training loops: event files TensorBoard reads
// (the format is in kiln/io/event_file.h).
//
//   auto writer = kiln::summary::create_file_writer("logs/train");
//   {
//     auto scope = writer.as_default();           // this thread's default writer until `scope` ends
//     for (int64_t step = 0; step < 100; ++step) {
//       kiln::summary::scalar("loss", loss, step);
//       kiln::summary::histogram("weights", w.value(), step);   // 30 buckets
//     }
//   }
//   writer.flush();
//
// As in TensorFlow the default writer and the default step are per thread;
// each write returns false (and writes nothing) when there is no default writer.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "kiln/core/tensor.h"
#include "kiln/graph/concrete_function.h"

namespace kiln::summary {

struct WriterState;  // private: framework/src/io/summary.cpp

/// While alive, makes a writer this thread's default (and, with a step, the
/// default step); on destruction restores the previous ones, so scopes nest.
class WriterScope {
 public:
  ~WriterScope();
  WriterScope(const WriterScope&) = delete;
  WriterScope& operator=(const WriterScope&) = delete;

 private:
  friend class SummaryWriter;
  WriterScope(std::shared_ptr<WriterState> writer, std::optional<int64_t> step, bool sets_step);
  std::shared_ptr<WriterState> previous_writer_;
  std::optional<int64_t> previous_step_;
  bool restores_step_ = false;
};

/// A handle to an event file (like tf.summary.SummaryWriter): copies share the file.
/// The file is closed by close() or when the last handle and scope go away.
class SummaryWriter {
 public:
  SummaryWriter() = default;
  /// Wraps a writer's state (create_file_writer() makes one).
  explicit SummaryWriter(std::shared_ptr<WriterState> state) : state_(std::move(state)) {}

  /// Scope in which summary::scalar() and the others write here.
  [[nodiscard]] WriterScope as_default() const;
  /// The same, with `step` as the default step inside the scope.
  [[nodiscard]] WriterScope as_default(int64_t step) const;
  /// Writes buffered events to the file.
  void flush() const;
  /// Flushes and closes the file; later writes and as_default() throw kiln::RuntimeError.
  void close() const;
  /// Whether close() was called.
  bool closed() const;
  /// The event file, "<logdir>/events.out.tfevents.<time>.<host>.<pid>.<n>.v2".
  std::string path() const;
  /// Whether this handle refers to a writer (false when default-constructed).
  bool defined() const { return state_ != nullptr; }
  /// The shared writer state.
  const std::shared_ptr<WriterState>& state() const { return state_; }

 private:
  std::shared_ptr<WriterState> state_;
};

/// tf.summary.create_file_writer: creates `logdir` and a new event file in it.
SummaryWriter create_file_writer(const std::string& logdir);

/// A rank-0 float32 value with the "scalars" plugin. Without `step`, the default step
/// is used (experimental::set_step or as_default(step)); with neither, kiln::ValueError.
bool scalar(const std::string& name, double data, std::optional<int64_t> step = std::nullopt);
/// The same for a one-element tensor.
bool scalar(const std::string& name, const Tensor& data, std::optional<int64_t> step = std::nullopt);
/// `buckets` equal-width buckets between the minimum and maximum of `data` (any shape),
/// as TensorFlow 2 writes them: a [buckets, 3] tensor of (left edge, right edge, count).
bool histogram(const std::string& name, const Tensor& data, std::optional<int64_t> step = std::nullopt,
               int buckets = 30);
/// A string with the "text" plugin (TensorBoard renders it as Markdown).
bool text(const std::string& name, const std::string& data, std::optional<int64_t> step = std::nullopt);
/// Images `data` [k, h, w, c] (c = 1, 2, 3 or 4): float32/float64 in [0, 1] or uint8.
/// The first `max_outputs` are PNG-encoded; floats become uint8 as
/// tf.image.convert_image_dtype(saturate=True) does: min(max(x · 255.5, 0), 255), truncated.
bool image(const std::string& name, const Tensor& data, std::optional<int64_t> step = std::nullopt,
           int max_outputs = 3);

/// tf.summary.graph: a traced graph (kiln::Function::get_concrete_function) for
/// TensorBoard's graph view, at the default step or 0.
bool graph(const ConcreteFunction& f);
/// tf.summary.trace_on(graph=True): from now on this thread collects the graph
/// of every kiln::function it calls, until trace_export or trace_off.
void trace_on(bool graph = true);
/// tf.summary.trace_export: writes each graph collected since trace_on to the
/// default writer at `step` (or the default step), and stops collecting.
/// Returns false, writing nothing, without a default writer or without graphs.
bool trace_export(const std::string& name, std::optional<int64_t> step = std::nullopt);
/// Stops collecting and drops what was collected.
void trace_off();

namespace experimental {
/// This thread's default step for the writes above (nullopt: none).
void set_step(std::optional<int64_t> step);
std::optional<int64_t> get_step();  ///< The default step set_step() gave (tf.summary.experimental.get_step).
}  // namespace experimental

}  // namespace kiln::summary

#pragma once
// Where the time goes: a trace of training steps, layer calls and, inside
// compiled steps, every op with the layer it came from. The trace is written in
// the Chrome trace event format, which Perfetto (ui.perfetto.dev) and
// chrome://tracing open; summary() is the same trace as a per-layer table.
// While no trace is being recorded, the hooks cost one relaxed atomic load.
//
//   kiln::profiler::start("logs");
//   model.fit(x, y, {.epochs = 1});
//   std::string path = kiln::profiler::stop();   // logs/plugins/profile/<time>/kiln.trace.json
//   std::cout << kiln::profiler::summary();
//
// TensorBoard({.profile_batch = {10, 15}}) does the same for a range of batches.
#include <string>

namespace kiln::profiler {

/// Starts recording a trace that stop() writes under `logdir`, as
/// tf.profiler.experimental.start(logdir) does. Throws ValueError when a trace
/// is already being recorded.
void start(const std::string& logdir);
/// Stops recording and writes the trace to
/// <logdir>/plugins/profile/<YYYY_MM_DD_HH_MM_SS>/kiln.trace.json (where
/// TensorBoard's profile plugin looks); returns that path. Throws ValueError
/// when no trace is being recorded, IOError when the file cannot be written.
std::string stop();
/// Whether a trace is being recorded.
bool active();
/// The last stopped trace as a table: per layer, the time its ops took (its
/// sublayers' included), its share of the steps' time and its calls; the time
/// outside any layer (loss, optimizer, metrics) on its own row. Empty before
/// the first stop().
std::string summary();

}  // namespace kiln::profiler

// tf.summary: a per-thread default writer and step (TensorFlow keeps both in a
// threading.local), and the encodings of tensorboard/plugins/*/summary_v2.py.
#include "kiln/io/summary.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <vector>

#include "io/graph_def_proto.h"
#include "kiln/graph/function.h"
#include "io/png_encoder.h"
#include "kiln/core/error.h"
#include "kiln/io/event_file.h"

namespace kiln::summary {

struct WriterState {
  std::mutex mu;
  std::unique_ptr<io::EventFileWriter> file;  // null once closed
  std::string path;
};

namespace {
thread_local std::shared_ptr<WriterState> t_default_writer;
thread_local std::optional<int64_t> t_default_step;

WriterState& open_state(const std::shared_ptr<WriterState>& s) {
  if (!s) throw ValueError("SummaryWriter: this handle has no writer (use kiln::summary::create_file_writer)");
  return *s;
}

// TensorFlow's write(): no default writer means nothing to do; then the step must be known.
template <class Write>
bool write_to_default(std::optional<int64_t> step, Write write) {
  const std::shared_ptr<WriterState> w = t_default_writer;
  if (!w) return false;
  if (!step) step = t_default_step;
  if (!step)
    throw ValueError("No step set. Please specify one either through the `step` argument or through "
                     "tf.summary.experimental.set_step()");
  std::lock_guard<std::mutex> lock(w->mu);
  if (!w->file) throw RuntimeError("SummaryWriter is already closed (" + w->path + ")");
  write(*w->file, *step);
  return true;
}

std::vector<uint8_t> to_uint8_pixels(const Tensor& data) {
  const Tensor host = data.to(Device::cpu());
  if (data.dtype() == DType::uint8) return host.to_vector<uint8_t>();
  if (!is_floating(data.dtype()))
    throw TypeError("summary::image: data must be float32, float64 or uint8, received " + dtype_name(data.dtype()));
  std::vector<uint8_t> out;
  for (double x : host.to_vector<double>()) {
    // tf.image.convert_image_dtype(saturate=True): scale by 255 + 0.5, clamp, then cast (truncation).
    const double v = std::isnan(x) ? 0.0 : std::clamp(x * 255.5, 0.0, 255.0);
    out.push_back(static_cast<uint8_t>(v));
  }
  return out;
}
}  // namespace

WriterScope::WriterScope(std::shared_ptr<WriterState> writer, std::optional<int64_t> step, bool sets_step)
    : previous_writer_(std::move(t_default_writer)), previous_step_(t_default_step), restores_step_(sets_step) {
  t_default_writer = std::move(writer);
  if (sets_step) t_default_step = step;
}

WriterScope::~WriterScope() {
  t_default_writer = std::move(previous_writer_);
  if (restores_step_) t_default_step = previous_step_;
}

WriterScope SummaryWriter::as_default() const {
  if (closed()) throw RuntimeError("SummaryWriter is already closed (" + path() + ")");
  return WriterScope(state_, std::nullopt, false);
}

WriterScope SummaryWriter::as_default(int64_t step) const {
  if (closed()) throw RuntimeError("SummaryWriter is already closed (" + path() + ")");
  return WriterScope(state_, step, true);
}

void SummaryWriter::flush() const {
  WriterState& s = open_state(state_);
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.file) s.file->flush();
}

void SummaryWriter::close() const {
  WriterState& s = open_state(state_);
  std::lock_guard<std::mutex> lock(s.mu);
  s.file.reset();  // the destructor flushes and closes
}

bool SummaryWriter::closed() const {
  WriterState& s = open_state(state_);
  std::lock_guard<std::mutex> lock(s.mu);
  return !s.file;
}

std::string SummaryWriter::path() const { return open_state(state_).path; }

SummaryWriter create_file_writer(const std::string& logdir) {
  auto s = std::make_shared<WriterState>();
  s->file = std::make_unique<io::EventFileWriter>(logdir);
  s->path = s->file->path();
  return SummaryWriter(std::move(s));
}

bool scalar(const std::string& name, double data, std::optional<int64_t> step) {
  return write_to_default(step, [&](io::EventFileWriter& f, int64_t s) { f.add_scalar(name, data, s); });
}

bool scalar(const std::string& name, const Tensor& data, std::optional<int64_t> step) {
  if (data.size() != 1)
    throw ValueError("summary::scalar: '" + name + "' must be a scalar, received shape " + data.shape().to_string());
  return scalar(name, data.to(Device::cpu()).item<double>(), step);
}

bool histogram(const std::string& name, const Tensor& data, std::optional<int64_t> step, int buckets) {
  return write_to_default(step, [&](io::EventFileWriter& f, int64_t s) {
    const std::vector<double> values = data.to(Device::cpu()).to_vector<double>();
    f.add_histogram_tensor(name, io::histogram_buckets(values, buckets), s);
  });
}

bool text(const std::string& name, const std::string& data, std::optional<int64_t> step) {
  return write_to_default(step, [&](io::EventFileWriter& f, int64_t s) { f.add_text(name, data, s); });
}

bool image(const std::string& name, const Tensor& data, std::optional<int64_t> step, int max_outputs) {
  if (data.rank() != 4 || data.shape()[3] < 1 || data.shape()[3] > 4)
    throw ValueError("summary::image: '" + name + "' must have shape [k, h, w, c] with c in 1..4, received " +
                     data.shape().to_string());
  if (max_outputs < 0) throw ValueError("summary::image: max_outputs must be >= 0, received " + std::to_string(max_outputs));
  return write_to_default(step, [&](io::EventFileWriter& f, int64_t s) {
    const int64_t k = std::min<int64_t>(data.shape()[0], max_outputs);
    const int64_t h = data.shape()[1], w = data.shape()[2];
    const int c = static_cast<int>(data.shape()[3]);
    const std::vector<uint8_t> pixels = to_uint8_pixels(data);
    std::vector<std::string> pngs;
    for (int64_t i = 0; i < k; ++i) pngs.push_back(io::encode_png(pixels.data() + i * h * w * c, w, h, c));
    f.add_images(name, w, h, pngs, s);
  });
}

namespace experimental {
void set_step(std::optional<int64_t> step) { t_default_step = step; }
std::optional<int64_t> get_step() { return t_default_step; }
}  // namespace experimental

bool graph(const ConcreteFunction& f) {
  const std::optional<int64_t> step = experimental::get_step() ? std::nullopt : std::optional<int64_t>(0);
  return write_to_default(step, [&](io::EventFileWriter& w, int64_t s) { w.add_graph(io::graph_def_proto(f), s); });
}

void trace_on(bool graph) {
  if (graph) kiln::graph::start_collecting();
}

bool trace_export(const std::string& name, std::optional<int64_t> step) {
  (void)name;  // TensorFlow tags the run metadata with it; a GraphDef event has no tag
  const std::vector<ConcreteFunction> graphs = kiln::graph::stop_collecting();
  if (graphs.empty()) return false;
  return write_to_default(step, [&](io::EventFileWriter& w, int64_t s) {
    for (const auto& g : graphs) w.add_graph(io::graph_def_proto(g), s);
  });
}

void trace_off() { kiln::graph::stop_collecting(); }

}  // namespace kiln::summary

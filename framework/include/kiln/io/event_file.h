#pragma once
// TensorBoard event files, written by hand (no protobuf or TensorFlow needed).
//
// A file is a sequence of TFRecords (tensorflow core/lib/io/record_writer.cc):
//   uint64 length | uint32 masked_crc32c(length bytes) | data[length] | uint32 masked_crc32c(data)
// all little-endian, where crc32c is CRC-32C (Castagnoli, reflected polynomial
// 0x82F63B78) and masked(c) = ((c >> 15) | (c << 17)) + 0xa282ead8.
// Each record's data is a serialized `Event` protobuf (tensorboard/compat/proto/event.proto):
//   Event   { double wall_time = 1; int64 step = 2; string file_version = 3; Summary summary = 5; }
//   Summary { repeated Value value = 1; }
//   Value   { string tag = 1; float simple_value = 2; HistogramProto histo = 5;
//             TensorProto tensor = 8; SummaryMetadata metadata = 9; }
// The first record is always Event{wall_time, file_version: "brain.Event:2"}.
// Scalars are written in the TF2 form that tf.summary.scalar (and so Keras 3)
// uses: Value{tag, tensor{dtype: DT_FLOAT, tensor_shape: {}, float_val: [v]},
// metadata{plugin_data{plugin_name: "scalars"}, data_class: DATA_CLASS_SCALAR}}.
// Legacy histograms are HistogramProto{min, max, num, sum, sum_squares, bucket_limit,
// bucket} with TensorFlow's default buckets (core/lib/histogram/histogram.cc:
// limits ±1e-12·1.1^k up to 1e20, ±DBL_MAX and 0; runs of empty buckets collapsed).
// tf.summary.histogram, tf.summary.text and tf.summary.image write tensors
// with their plugin's name in the metadata (tensorboard/plugins/*/summary_v2.py):
//   histograms: DT_DOUBLE [k, 3] rows (left edge, right edge, count);
//   text:       DT_STRING scalar;
//   images:     DT_STRING [2 + n] = (width, height, PNG...);
// only scalars set a data class (TensorBoard derives the others' from the plugin name).
// Fields holding proto3 defaults (0, empty) are omitted, as protobuf does.
// kiln/io/summary.h is the tf.summary API on top of this file.
//
//   kiln::io::EventFileWriter w("logs/train");
//   w.add_scalar("epoch_loss", 0.25, /*step=*/0);
//   w.flush();
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace kiln::io {

/// CRC-32C of `n` bytes (init 0xFFFFFFFF, final xor 0xFFFFFFFF): crc32c("123456789") = 0xE3069283.
uint32_t crc32c(const void* data, std::size_t n);
/// TFRecord's masked CRC: ((crc >> 15) | (crc << 17)) + 0xa282ead8.
uint32_t masked_crc32c(const void* data, std::size_t n);
/// One TFRecord holding `data` (length, masked CRC of the length, data, masked CRC of the data).
std::string tfrecord(const std::string& data);
/// The data of every TFRecord in the file at `path`, in order. Throws kiln::IOError
/// naming the record when a length or data CRC does not match or a record is cut short.
std::vector<std::string> read_tfrecords(const std::string& path);

/// Serialized Event protobufs.
namespace event_proto {
/// The first record of every file: Event{wall_time, file_version}.
std::string file_version(double wall_time, const std::string& version = "brain.Event:2");
/// Legacy scalar: Value{tag, simple_value}.
std::string simple_value(double wall_time, int64_t step, const std::string& tag, float value);
/// TF2 scalar: Value{tag, tensor{DT_FLOAT, shape (), float_val}, metadata{"scalars", DATA_CLASS_SCALAR}}.
std::string scalar(double wall_time, int64_t step, const std::string& tag, float value);
/// Histogram of `values` with TensorFlow's default buckets: Value{tag, histo}.
std::string histogram(double wall_time, int64_t step, const std::string& tag, const std::vector<double>& values);
/// TF2 histogram: Value{tag, tensor{DT_DOUBLE, shape (k, 3), rows (left, right, count)}, metadata{"histograms"}}.
std::string histogram_tensor(double wall_time, int64_t step, const std::string& tag,
                             const std::vector<double>& buckets);
/// TF2 text: Value{tag, tensor{DT_STRING, shape (), string_val}, metadata{"text"}}.
std::string text(double wall_time, int64_t step, const std::string& tag, const std::string& value);
/// A graph for TensorBoard's graph view: Event{wall_time, step, graph_def = 4: serialized GraphDef}.
std::string graph(double wall_time, int64_t step, const std::string& graph_def);
/// TF2 images: Value{tag, tensor{DT_STRING, shape (2 + n), [width, height, png...]},
/// metadata{"images"}}.
std::string images(double wall_time, int64_t step, const std::string& tag, int64_t width, int64_t height,
                   const std::vector<std::string>& pngs);
}  // namespace event_proto

/// tf.summary.histogram's buckets (summary_v2._buckets): `bucket_count` equal-width
/// buckets from min to max as rows (left, right, count), flattened; all zeros for no
/// values; one value (or min == max) puts every count in the last bucket, whose edges are both the value.
std::vector<double> histogram_buckets(const std::vector<double>& values, int bucket_count);

/// TensorFlow's default histogram bucket limits, ascending from -DBL_MAX to DBL_MAX.
const std::vector<double>& default_histogram_bucket_limits();

/// Appends Events to dir/events.out.tfevents.{10-digit time}.{host}.{pid}.{n}.v2
/// (tf.summary.create_file_writer's name). The directory and the file are
/// created on construction, with the file_version record first.
class EventFileWriter {
 public:
  /// Creates `dir` and a new event file in it.
  explicit EventFileWriter(const std::string& dir);
  ~EventFileWriter();
  EventFileWriter(const EventFileWriter&) = delete;
  EventFileWriter& operator=(const EventFileWriter&) = delete;

  /// A TF2 scalar (tf.summary.scalar).
  void add_scalar(const std::string& tag, double value, int64_t step);
  /// Legacy HistogramProto with TensorFlow's default buckets (the TensorBoard callback's form).
  void add_histogram(const std::string& tag, const std::vector<double>& values, int64_t step);
  /// TF2 histogram of histogram_buckets() rows.
  void add_histogram_tensor(const std::string& tag, const std::vector<double>& buckets, int64_t step);
  /// A TF2 text summary (tf.summary.text).
  void add_text(const std::string& tag, const std::string& value, int64_t step);
  /// `graph_def` is a serialized tensorflow.GraphDef.
  void add_graph(const std::string& graph_def, int64_t step);
  /// `pngs` are whole PNG files of width x height images.
  void add_images(const std::string& tag, int64_t width, int64_t height, const std::vector<std::string>& pngs,
                  int64_t step);
  /// Writes one serialized Event as a TFRecord.
  void write_event(const std::string& event);
  /// Flushes buffered records to the file.
  void flush();
  /// Closes the file; later writes throw IOError.
  void close();
  /// The event file's path.
  const std::string& path() const { return path_; }

  /// Seconds since the epoch, with microseconds (an Event's wall_time).
  static double now();

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
};

}  // namespace kiln::io

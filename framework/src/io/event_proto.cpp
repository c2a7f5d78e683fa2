// Event protobufs (the layouts are in kiln/io/event_file.h) and the histogram bucketing
// of TensorFlow's C++ histogram and of tf.summary.histogram.
#include <algorithm>
#include <cfloat>
#include <cmath>

#include "io/proto_wire.h"
#include "kiln/io/event_file.h"

namespace kiln::io {

using namespace wire;

namespace {
// Event{wall_time = 1, step = 2, <what>}; proto3 leaves out zero scalars.
std::string event_header(double wall_time, int64_t step) {
  std::string e;
  if (wall_time != 0.0) put_double_field(e, 1, wall_time);
  if (step != 0) put_varint_field(e, 2, static_cast<uint64_t>(step));
  return e;
}
std::string event_with_value(double wall_time, int64_t step, const std::string& value) {
  std::string summary;
  put_bytes_field(summary, 1, value);  // Summary.value
  std::string e = event_header(wall_time, step);
  put_bytes_field(e, 5, summary);  // Event.summary
  return e;
}

// TensorFlow's DataType and TensorBoard's DataClass values.
constexpr int kDtFloat = 1, kDtDouble = 2, kDtString = 7;
// Only scalars carry a data class: TensorBoard infers the others' from the plugin
// name when it loads them (dataclass_compat.py), as for what TensorFlow writes.
constexpr int kClassNone = 0, kClassScalar = 1;

// TensorShapeProto{dim = 2: Dim{size = 1}}; a scalar's shape is present but empty.
std::string tensor_shape(const std::vector<int64_t>& dims) {
  std::string shape;
  for (int64_t d : dims) {
    std::string dim;
    if (d != 0) put_varint_field(dim, 1, static_cast<uint64_t>(d));
    put_bytes_field(shape, 2, dim);
  }
  return shape;
}
// TensorProto{dtype = 1, tensor_shape = 2, <values>}.
std::string tensor_proto(int dtype, const std::vector<int64_t>& dims) {
  std::string t;
  put_varint_field(t, 1, static_cast<uint64_t>(dtype));
  put_bytes_field(t, 2, tensor_shape(dims));
  return t;
}
// SummaryMetadata{plugin_data = 1: {plugin_name = 1}, data_class = 4}.
std::string plugin_metadata(const std::string& plugin, int data_class) {
  std::string pd;
  put_bytes_field(pd, 1, plugin);
  std::string meta;
  put_bytes_field(meta, 1, pd);
  if (data_class != kClassNone) put_varint_field(meta, 4, static_cast<uint64_t>(data_class));
  return meta;
}
// Value{tag = 1, tensor = 8, metadata = 9}, in field order as protobuf writes them.
std::string tensor_value(const std::string& tag, const std::string& tensor, const std::string& meta) {
  std::string v;
  put_bytes_field(v, 1, tag);
  put_bytes_field(v, 8, tensor);
  put_bytes_field(v, 9, meta);
  return v;
}
}  // namespace

namespace event_proto {

std::string file_version(double wall_time, const std::string& version) {
  std::string e = event_header(wall_time, 0);
  put_bytes_field(e, 3, version);
  return e;
}

std::string simple_value(double wall_time, int64_t step, const std::string& tag, float value) {
  std::string v;
  put_bytes_field(v, 1, tag);
  put_float_field(v, 2, value);
  return event_with_value(wall_time, step, v);
}

std::string scalar(double wall_time, int64_t step, const std::string& tag, float value) {
  std::string tensor = tensor_proto(kDtFloat, {});
  std::string fv;
  put_le(fv, float_bits(value), 4);
  put_bytes_field(tensor, 5, fv);  // float_val, packed
  return event_with_value(wall_time, step, tensor_value(tag, tensor, plugin_metadata("scalars", kClassScalar)));
}

std::string histogram(double wall_time, int64_t step, const std::string& tag, const std::vector<double>& values) {
  // tensorflow/core/lib/histogram/histogram.cc: Add() and EncodeToProto(preserve_zero_buckets=false).
  const auto& limits = default_histogram_bucket_limits();
  std::vector<double> counts(limits.size(), 0.0);
  double mn = limits.back(), mx = -limits.back(), num = 0, sum = 0, sum_sq = 0;
  for (double x : values) {
    if (!std::isfinite(x)) continue;  // TF refuses non-finite values; a callback skips them
    auto b = static_cast<std::size_t>(std::upper_bound(limits.begin(), limits.end(), x) - limits.begin());
    counts[std::min(b, counts.size() - 1)] += 1.0;
    mn = std::min(mn, x);
    mx = std::max(mx, x);
    num += 1;
    sum += x;
    sum_sq += x * x;
  }
  std::vector<double> out_limits, out_counts;
  for (std::size_t i = 0; i < counts.size();) {
    double end = limits[i];
    double count = counts[i];
    ++i;
    if (count <= 0.0) {
      // Collapse a run of empty buckets into one.
      while (i < counts.size() && counts[i] <= 0.0) {
        end = limits[i];
        count = counts[i];
        ++i;
      }
    }
    out_limits.push_back(end);
    out_counts.push_back(count);
  }
  // HistogramProto{min = 1, max = 2, num = 3, sum = 4, sum_squares = 5, bucket_limit = 6, bucket = 7}
  std::string h;
  if (mn != 0.0) put_double_field(h, 1, mn);
  if (mx != 0.0) put_double_field(h, 2, mx);
  if (num != 0.0) put_double_field(h, 3, num);
  if (sum != 0.0) put_double_field(h, 4, sum);
  if (sum_sq != 0.0) put_double_field(h, 5, sum_sq);
  put_packed_doubles(h, 6, out_limits);
  put_packed_doubles(h, 7, out_counts);
  std::string v;
  put_bytes_field(v, 1, tag);
  put_bytes_field(v, 5, h);
  return event_with_value(wall_time, step, v);
}

std::string histogram_tensor(double wall_time, int64_t step, const std::string& tag,
                             const std::vector<double>& buckets) {
  std::string tensor = tensor_proto(kDtDouble, {static_cast<int64_t>(buckets.size() / 3), 3});
  put_packed_doubles(tensor, 6, buckets);  // double_val
  // HistogramPluginData{version: 0} serializes to nothing, so there is no plugin content.
  return event_with_value(wall_time, step, tensor_value(tag, tensor, plugin_metadata("histograms", kClassNone)));
}

std::string text(double wall_time, int64_t step, const std::string& tag, const std::string& value) {
  std::string tensor = tensor_proto(kDtString, {});
  put_bytes_field(tensor, 8, value);  // string_val
  return event_with_value(wall_time, step, tensor_value(tag, tensor, plugin_metadata("text", kClassNone)));
}

std::string graph(double wall_time, int64_t step, const std::string& graph_def) {
  std::string e = event_header(wall_time, step);
  put_bytes_field(e, 4, graph_def);  // Event.graph_def
  return e;
}

std::string images(double wall_time, int64_t step, const std::string& tag, int64_t width, int64_t height,
                   const std::vector<std::string>& pngs) {
  std::string tensor = tensor_proto(kDtString, {static_cast<int64_t>(pngs.size()) + 2});
  put_bytes_field(tensor, 8, std::to_string(width));
  put_bytes_field(tensor, 8, std::to_string(height));
  for (const auto& png : pngs) put_bytes_field(tensor, 8, png);
  return event_with_value(wall_time, step,
                          tensor_value(tag, tensor, plugin_metadata("images", kClassNone)));
}

}  // namespace event_proto

const std::vector<double>& default_histogram_bucket_limits() {
  static const std::vector<double> limits = [] {
    std::vector<double> pos, neg;
    // Buckets whose range grows by 10%, from 1e-12 up to 1e20.
    double v = 1.0e-12;
    while (v < 1.0e20) {
      pos.push_back(v);
      neg.push_back(-v);
      v *= 1.1;
    }
    pos.push_back(DBL_MAX);
    neg.push_back(-DBL_MAX);
    std::reverse(neg.begin(), neg.end());
    std::vector<double> all(neg);
    all.push_back(0.0);
    all.insert(all.end(), pos.begin(), pos.end());
    return all;
  }();
  return limits;
}

std::vector<double> histogram_buckets(const std::vector<double>& values, int bucket_count) {
  const auto k = static_cast<std::size_t>(std::max(0, bucket_count));
  std::vector<double> rows(3 * k, 0.0);
  if (values.empty() || k == 0) return rows;
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  const double mn = *lo, mx = *hi, range = mx - mn;
  if (range == 0.0) {
    for (std::size_t i = 0; i < k; ++i) rows[3 * i] = rows[3 * i + 1] = mx;
    rows[3 * k - 1] = static_cast<double>(values.size());
    return rows;
  }
  const double width = range / static_cast<double>(k);
  for (double x : values) {
    const auto b = static_cast<std::size_t>(std::floor((x - mn) / width));
    rows[3 * std::min(b, k - 1) + 2] += 1.0;
  }
  // tf.linspace(min, max, k + 1) with the last edge forced to max.
  const double step = range / static_cast<double>(k);
  for (std::size_t i = 0; i < k; ++i) {
    rows[3 * i] = mn + static_cast<double>(i) * step;
    rows[3 * i + 1] = i + 1 == k ? mx : mn + static_cast<double>(i + 1) * step;
  }
  return rows;
}

}  // namespace kiln::io

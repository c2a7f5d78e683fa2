#include "kiln/callbacks/event_writer.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "kiln/core/error.h"

namespace kiln::callbacks {

// ---------------------------------------------------------------- CRC-32C
namespace {
constexpr uint32_t kCastagnoliReflected = 0x82F63B78u;
constexpr uint32_t kMaskDelta = 0xa282ead8u;

constexpr std::array<uint32_t, 256> make_crc_table() {
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kCastagnoliReflected : (c >> 1);
    t[i] = c;
  }
  return t;
}
constexpr std::array<uint32_t, 256> kCrcTable = make_crc_table();
}  // namespace

uint32_t crc32c(const void* data, std::size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint32_t c = 0xFFFFFFFFu;
  for (std::size_t i = 0; i < n; ++i) c = kCrcTable[(c ^ p[i]) & 0xFFu] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

uint32_t masked_crc32c(const void* data, std::size_t n) {
  const uint32_t c = crc32c(data, n);
  return ((c >> 15) | (c << 17)) + kMaskDelta;
}

// ---------------------------------------------------------------- protobuf wire format
namespace {
// Little-endian byte writers, independent of the host's byte order.
void put_le(std::string& s, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xFFu));
}
void put_varint(std::string& s, uint64_t v) {
  while (v >= 0x80) {
    s.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  s.push_back(static_cast<char>(v));
}
enum WireType { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };
void put_key(std::string& s, int field, WireType wt) { put_varint(s, (static_cast<uint64_t>(field) << 3) | wt); }
uint64_t double_bits(double v) {
  uint64_t b;
  std::memcpy(&b, &v, 8);
  return b;
}
uint32_t float_bits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
}
void put_double_field(std::string& s, int field, double v) {
  put_key(s, field, kFixed64);
  put_le(s, double_bits(v), 8);
}
void put_float_field(std::string& s, int field, float v) {
  put_key(s, field, kFixed32);
  put_le(s, float_bits(v), 4);
}
void put_varint_field(std::string& s, int field, uint64_t v) {
  put_key(s, field, kVarint);
  put_varint(s, v);
}
void put_bytes_field(std::string& s, int field, const std::string& b) {
  put_key(s, field, kLengthDelimited);
  put_varint(s, b.size());
  s += b;
}
void put_packed_doubles(std::string& s, int field, const std::vector<double>& v) {
  if (v.empty()) return;
  std::string body;
  for (double d : v) put_le(body, double_bits(d), 8);
  put_bytes_field(s, field, body);
}

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
}  // namespace

std::string tfrecord(const std::string& data) {
  std::string len;
  put_le(len, data.size(), 8);
  std::string r = len;
  put_le(r, masked_crc32c(len.data(), len.size()), 4);
  r += data;
  put_le(r, masked_crc32c(data.data(), data.size()), 4);
  return r;
}

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
  // TensorProto{dtype = 1: DT_FLOAT, tensor_shape = 2: {} (present, empty), float_val = 5: packed}
  std::string tensor;
  put_varint_field(tensor, 1, 1);
  put_bytes_field(tensor, 2, "");
  std::string fv;
  put_le(fv, float_bits(value), 4);
  put_bytes_field(tensor, 5, fv);
  // SummaryMetadata{plugin_data = 1: {plugin_name = 1: "scalars"}, data_class = 4: DATA_CLASS_SCALAR (1)}
  std::string plugin;
  put_bytes_field(plugin, 1, "scalars");
  std::string meta;
  put_bytes_field(meta, 1, plugin);
  put_varint_field(meta, 4, 1);
  // Value{tag = 1, tensor = 8, metadata = 9}, in field order as protobuf writes them.
  std::string v;
  put_bytes_field(v, 1, tag);
  put_bytes_field(v, 8, tensor);
  put_bytes_field(v, 9, meta);
  return event_with_value(wall_time, step, v);
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

// ---------------------------------------------------------------- EventFileWriter

double EventFileWriter::now() {
  using namespace std::chrono;
  const auto us = duration_cast<microseconds>(system_clock::now().time_since_epoch()).count();
  return static_cast<double>(us) / 1e6;
}

EventFileWriter::EventFileWriter(const std::string& dir) {
  static std::atomic<int> counter{0};
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw IOError("EventFileWriter: cannot create directory '" + dir + "': " + ec.message());
  char host[256] = "localhost";
  if (gethostname(host, sizeof(host) - 1) != 0) std::strcpy(host, "localhost");
  host[sizeof(host) - 1] = '\0';
  const double t = now();
  char name[512];
  std::snprintf(name, sizeof(name), "events.out.tfevents.%010lld.%s.%d.%d.v2", static_cast<long long>(t), host,
                static_cast<int>(getpid()), counter++);
  path_ = (std::filesystem::path(dir) / name).string();
  file_ = std::fopen(path_.c_str(), "wb");
  if (!file_) throw IOError("EventFileWriter: cannot open '" + path_ + "' for writing");
  write_event(event_proto::file_version(t));
  flush();
}

EventFileWriter::~EventFileWriter() { close(); }

void EventFileWriter::write_event(const std::string& event) {
  if (!file_) throw IOError("EventFileWriter: '" + path_ + "' is closed");
  const std::string rec = tfrecord(event);
  if (std::fwrite(rec.data(), 1, rec.size(), file_) != rec.size())
    throw IOError("EventFileWriter: writing to '" + path_ + "' failed");
}

void EventFileWriter::add_scalar(const std::string& tag, double value, int64_t step) {
  write_event(event_proto::scalar(now(), step, tag, static_cast<float>(value)));
}

void EventFileWriter::add_histogram(const std::string& tag, const std::vector<double>& values, int64_t step) {
  write_event(event_proto::histogram(now(), step, tag, values));
}

void EventFileWriter::flush() {
  if (file_) std::fflush(file_);
}

void EventFileWriter::close() {
  if (file_) {
    std::fclose(file_);
    file_ = nullptr;
  }
}

}  // namespace kiln::callbacks

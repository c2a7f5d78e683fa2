// TFRecord framing (CRC-32C), reading records back, and the event file itself;
// the Event protobufs are built in event_proto.cpp.
#include "kiln/io/event_file.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "io/proto_wire.h"
#include "kiln/core/error.h"

namespace kiln::io {

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

std::string tfrecord(const std::string& data) {
  std::string len;
  wire::put_le(len, data.size(), 8);
  std::string r = len;
  wire::put_le(r, masked_crc32c(len.data(), len.size()), 4);
  r += data;
  wire::put_le(r, masked_crc32c(data.data(), data.size()), 4);
  return r;
}


std::vector<std::string> read_tfrecords(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw IOError("read_tfrecords: cannot open '" + path + "'");
  std::vector<std::string> out;
  auto fail = [&](const std::string& what) {
    std::fclose(f);
    throw IOError("read_tfrecords: '" + path + "' record " + std::to_string(out.size()) + ": " + what);
  };
  auto le = [](const unsigned char* p, int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
    return v;
  };
  unsigned char head[12];
  for (;;) {
    const std::size_t got = std::fread(head, 1, 12, f);
    if (got == 0) break;
    if (got != 12) fail("truncated header");
    if (le(head + 8, 4) != masked_crc32c(head, 8)) fail("length CRC mismatch");
    std::string data(le(head, 8), '\0');
    unsigned char crc[4];
    if (std::fread(data.data(), 1, data.size(), f) != data.size() || std::fread(crc, 1, 4, f) != 4)
      fail("truncated data");
    if (le(crc, 4) != masked_crc32c(data.data(), data.size())) fail("data CRC mismatch");
    out.push_back(std::move(data));
  }
  std::fclose(f);
  return out;
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

void EventFileWriter::add_histogram_tensor(const std::string& tag, const std::vector<double>& buckets, int64_t step) {
  write_event(event_proto::histogram_tensor(now(), step, tag, buckets));
}

void EventFileWriter::add_graph(const std::string& graph_def, int64_t step) {
  write_event(event_proto::graph(now(), step, graph_def));
}

void EventFileWriter::add_text(const std::string& tag, const std::string& value, int64_t step) {
  write_event(event_proto::text(now(), step, tag, value));
}

void EventFileWriter::add_images(const std::string& tag, int64_t width, int64_t height,
                                 const std::vector<std::string>& pngs, int64_t step) {
  write_event(event_proto::images(now(), step, tag, width, height, pngs));
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

}  // namespace kiln::io

#include "io/zip_writer.h"

#include <zlib.h>

#include "kiln/core/error.h"

namespace kiln::io {

namespace {
void put16(std::vector<uint8_t>& b, uint16_t v) {
  b.push_back(static_cast<uint8_t>(v));
  b.push_back(static_cast<uint8_t>(v >> 8));
}
void put32(std::vector<uint8_t>& b, uint32_t v) {
  put16(b, static_cast<uint16_t>(v));
  put16(b, static_cast<uint16_t>(v >> 16));
}
// Version "made by": 2.0 on Unix (3), as CPython's zipfile writes.
constexpr uint16_t kMadeBy = (3 << 8) | 20;
constexpr uint16_t kNeeded = 20;
}  // namespace

void ZipWriter::add(const std::string& name, const std::string& text, std::time_t mtime) {
  add(name, std::vector<uint8_t>(text.begin(), text.end()), mtime);
}

void ZipWriter::add(const std::string& name, const std::vector<uint8_t>& bytes, std::time_t mtime) {
  if (bytes.size() > 0xFFFFFFFFull || out_.size() > 0xFFFFFFFFull - bytes.size() - 1024)
    throw IOError("zip member '" + name + "': archives over 4 GiB are not supported");
  Entry e;
  e.name = name;
  e.size = static_cast<uint32_t>(bytes.size());
  e.crc = static_cast<uint32_t>(crc32_z(crc32_z(0L, Z_NULL, 0), bytes.data(), bytes.size()));
  e.offset = static_cast<uint32_t>(out_.size());
  e.date = (0 << 9) | (1 << 5) | 1;  // 1980-01-01
  e.time = 0;
  if (mtime != kDosEpoch) {
    std::tm tm{};
    localtime_r(&mtime, &tm);
    if (tm.tm_year >= 80) {
      e.date = static_cast<uint16_t>(((tm.tm_year - 80) << 9) | ((tm.tm_mon + 1) << 5) | tm.tm_mday);
      e.time = static_cast<uint16_t>((tm.tm_hour << 11) | (tm.tm_min << 5) | (tm.tm_sec / 2));
    }
  }
  put32(out_, 0x04034b50);
  put16(out_, kNeeded);
  put16(out_, 0);  // flags
  put16(out_, 0);  // stored
  put16(out_, e.time);
  put16(out_, e.date);
  put32(out_, e.crc);
  put32(out_, e.size);
  put32(out_, e.size);
  put16(out_, static_cast<uint16_t>(name.size()));
  put16(out_, 0);
  out_.insert(out_.end(), name.begin(), name.end());
  out_.insert(out_.end(), bytes.begin(), bytes.end());
  entries_.push_back(std::move(e));
}

std::vector<uint8_t> ZipWriter::finish() {
  const uint32_t cd_start = static_cast<uint32_t>(out_.size());
  for (const Entry& e : entries_) {
    put32(out_, 0x02014b50);
    put16(out_, kMadeBy);
    put16(out_, kNeeded);
    put16(out_, 0);
    put16(out_, 0);
    put16(out_, e.time);
    put16(out_, e.date);
    put32(out_, e.crc);
    put32(out_, e.size);
    put32(out_, e.size);
    put16(out_, static_cast<uint16_t>(e.name.size()));
    put16(out_, 0);  // extra
    put16(out_, 0);  // comment
    put16(out_, 0);  // disk
    put16(out_, 0);  // internal attrs
    put32(out_, 0600u << 16);  // external attrs: -rw-------, as zipfile.writestr
    put32(out_, e.offset);
    out_.insert(out_.end(), e.name.begin(), e.name.end());
  }
  const uint32_t cd_size = static_cast<uint32_t>(out_.size()) - cd_start;
  put32(out_, 0x06054b50);
  put16(out_, 0);
  put16(out_, 0);
  put16(out_, static_cast<uint16_t>(entries_.size()));
  put16(out_, static_cast<uint16_t>(entries_.size()));
  put32(out_, cd_size);
  put32(out_, cd_start);
  put16(out_, 0);
  std::vector<uint8_t> done;
  done.swap(out_);
  entries_.clear();
  return done;
}

}  // namespace kiln::io

#include "io/zip_reader.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

#include "io/atomic_file.h"
#include "kiln/core/error.h"
#include "kiln/core/limits.h"

namespace kiln::io {

namespace {

using Bytes = std::vector<uint8_t>;

[[noreturn]] void fail(const std::string& source, const std::string& what) { throw IOError(source + ": " + what); }

uint64_t load_le(const uint8_t* p, std::size_t n) {
  uint64_t v = 0;
  for (std::size_t i = n; i-- > 0;) v = (v << 8) | p[i];
  return v;
}


// Signatures and fixed record sizes from PKWARE's APPNOTE.TXT (sections 4.3.7-4.3.16).
constexpr uint32_t kLocalHeaderSig = 0x04034b50;
constexpr uint32_t kCentralHeaderSig = 0x02014b50;
constexpr uint32_t kEndOfCentralDirSig = 0x06054b50;
constexpr uint32_t kZip64EndSig = 0x06064b50;
constexpr uint32_t kZip64LocatorSig = 0x07064b50;
constexpr std::size_t kLocalHeaderSize = 30;
constexpr std::size_t kCentralHeaderSize = 46;
constexpr std::size_t kEndOfCentralDirSize = 22;
constexpr std::size_t kZip64LocatorSize = 20;
constexpr std::size_t kZip64EndSize = 56;
constexpr uint16_t kZip64ExtraId = 0x0001;
constexpr uint16_t kMethodStored = 0;
constexpr uint16_t kMethodDeflate = 8;

// Bounds-checked little-endian reads: every offset in a zip comes from the
// file itself, so a corrupt archive must fail cleanly instead of reading
// past the buffer.
class Reader {
 public:
  Reader(const Bytes& b, const std::string& source) : b_(b), source_(source) {}
  void need(uint64_t off, uint64_t n, const char* what) const {
    if (off > b_.size() || n > b_.size() - off)
      fail(source_, std::string("truncated or corrupt zip archive: ") + what + " at offset " +
                        std::to_string(off) + " runs past the end of the " + std::to_string(b_.size()) +
                        "-byte file");
  }
  uint64_t le(uint64_t off, std::size_t n) const {
    need(off, n, "field");
    return load_le(b_.data() + off, n);
  }
  uint16_t u16(uint64_t off) const { return static_cast<uint16_t>(le(off, 2)); }
  uint32_t u32(uint64_t off) const { return static_cast<uint32_t>(le(off, 4)); }
  uint64_t u64(uint64_t off) const { return le(off, 8); }

 private:
  const Bytes& b_;
  const std::string& source_;
};

/// Where the central directory lies and how many entries it holds.
struct CentralDirectory {
  uint64_t count = 0, size = 0, offset = 0;
};

/// Finds the end-of-central-directory record (and the zip64 one it points to).
CentralDirectory locate_central_directory(const Reader& r, std::size_t file_size, const std::string& path) {
  // The end-of-central-directory record is the last thing in the file but
  // may be followed by a comment of up to 65535 bytes, so scan backwards.
  if (file_size < kEndOfCentralDirSize)
    fail(path, "not a zip archive: " + std::to_string(file_size) + " bytes is too short");
  const std::size_t lowest = file_size >= kEndOfCentralDirSize + 0xFFFF
                                 ? file_size - kEndOfCentralDirSize - 0xFFFF
                                 : 0;
  std::size_t eocd = file_size - kEndOfCentralDirSize;
  while (r.u32(eocd) != kEndOfCentralDirSig) {
    if (eocd == lowest)
      fail(path, "not a zip archive (no end-of-central-directory record; truncated download?)");
    --eocd;
  }
  if (r.u16(eocd + 4) != 0 || r.u16(eocd + 6) != 0) fail(path, "multi-disk zip archives are not supported");
  CentralDirectory cd;
  cd.count = r.u16(eocd + 10);
  cd.size = r.u32(eocd + 12);
  cd.offset = r.u32(eocd + 16);

  // 0xFFFF / 0xFFFFFFFF mean "see the zip64 record", found through the
  // locator that sits just before the classic record.
  if (cd.count == 0xFFFF || cd.size == 0xFFFFFFFF || cd.offset == 0xFFFFFFFF) {
    if (eocd < kZip64LocatorSize || r.u32(eocd - kZip64LocatorSize) != kZip64LocatorSig)
      fail(path, "corrupt zip64 archive: missing zip64 end-of-central-directory locator");
    const uint64_t z64 = r.u64(eocd - kZip64LocatorSize + 8);
    r.need(z64, kZip64EndSize, "zip64 end-of-central-directory record");
    if (r.u32(z64) != kZip64EndSig) fail(path, "corrupt zip64 archive: bad zip64 end-of-central-directory signature");
    cd.count = r.u64(z64 + 32);
    cd.size = r.u64(z64 + 40);
    cd.offset = r.u64(z64 + 48);
  }
  return cd;
}

/// Applies a central-directory entry's zip64 extended information, found in
/// its extra fields [x, x_end): only the fields whose classic value is
/// saturated are present, in this fixed order. `member` names the entry in errors.
void apply_zip64_extra(const Reader& r, uint64_t x, uint64_t x_end, uint64_t& uncompressed_size,
                       uint64_t& compressed_size, uint64_t& local_header_offset, const std::string& member) {
  while (x + 4 <= x_end) {
    const uint16_t id = r.u16(x);
    const uint16_t len = r.u16(x + 2);
    uint64_t f = x + 4;
    const uint64_t f_end = f + len;
    if (f_end > x_end) fail(member, "corrupt zip archive: extra field runs past its entry");
    if (id == kZip64ExtraId) {
      auto take = [&](uint64_t& field) {
        if (field != 0xFFFFFFFF) return;
        if (f + 8 > f_end) fail(member, "corrupt zip archive: short zip64 extra field");
        field = r.u64(f);
        f += 8;
      };
      take(uncompressed_size);
      take(compressed_size);
      take(local_header_offset);
    }
    x = f_end;
  }
}

}  // namespace

ZipReader::ZipReader(std::string path) : path_(std::move(path)), data_(read_file_bytes(path_)) {
  if (data_.empty()) fail(path_, "the file is empty (0 bytes), not a zip archive");
  read_central_directory();
}

ZipReader::ZipReader(Bytes bytes, std::string name) : path_(std::move(name)), data_(std::move(bytes)) {
  if (data_.empty()) fail(path_, "the data is empty (0 bytes), not a zip archive");
  read_central_directory();
}

bool ZipReader::contains(const std::string& name) const {
  for (const Entry& e : entries_)
    if (e.name == name) return true;
  return false;
}

uint64_t ZipReader::size(const std::string& name) const { return find(name).uncompressed_size; }

void ZipReader::read_central_directory() {
  const Reader r(data_, path_);
  const CentralDirectory cd = locate_central_directory(r, data_.size(), path_);
  r.need(cd.offset, cd.size, "central directory");

  uint64_t off = cd.offset;
  entries_.reserve(static_cast<std::size_t>(std::min<uint64_t>(cd.count, cd.size / kCentralHeaderSize)));
  for (uint64_t i = 0; i < cd.count; ++i) {
    r.need(off, kCentralHeaderSize, "central directory entry");
    if (r.u32(off) != kCentralHeaderSig)
      fail(path_, "corrupt zip archive: bad signature for central directory entry " + std::to_string(i));
    Entry e;
    e.flags = r.u16(off + 8);
    e.method = r.u16(off + 10);
    e.crc32 = r.u32(off + 16);
    e.compressed_size = r.u32(off + 20);
    e.uncompressed_size = r.u32(off + 24);
    const uint16_t name_len = r.u16(off + 28);
    const uint16_t extra_len = r.u16(off + 30);
    const uint16_t comment_len = r.u16(off + 32);
    e.local_header_offset = r.u32(off + 42);
    const uint64_t name_off = off + kCentralHeaderSize;
    r.need(name_off, uint64_t{name_len} + extra_len + comment_len, "central directory entry name");
    e.name.assign(reinterpret_cast<const char*>(data_.data() + name_off), name_len);
    apply_zip64_extra(r, name_off + name_len, name_off + name_len + extra_len, e.uncompressed_size, e.compressed_size,
                      e.local_header_offset, member(e));
    entries_.push_back(std::move(e));
    off = name_off + name_len + extra_len + comment_len;
  }
}

std::vector<std::string> ZipReader::names() const {
  std::vector<std::string> out;
  out.reserve(entries_.size());
  for (const Entry& e : entries_) out.push_back(e.name);
  return out;
}

const ZipReader::Entry& ZipReader::find(const std::string& name) const {
  for (const Entry& e : entries_)
    if (e.name == name) return e;
  fail(path_, "no member named '" + name + "' in the zip archive");
}

Bytes ZipReader::extract(const std::string& name) const {
  const Entry& e = find(name);
  const std::string src = member(e);
  if (e.flags & 0x1) fail(src, "encrypted zip entries are not supported");
  if (e.method != kMethodStored && e.method != kMethodDeflate)
    fail(src, "zip compression method " + std::to_string(e.method) +
                  " is not supported (only 0 stored and 8 deflate, which np.savez and np.savez_compressed write)");

  // The local header repeats the name and may carry a different extra field,
  // so its own lengths give the start of the data.
  const Reader r(data_, src);
  r.need(e.local_header_offset, kLocalHeaderSize, "local file header");
  if (r.u32(e.local_header_offset) != kLocalHeaderSig) fail(src, "corrupt zip archive: bad local file header signature");
  const uint64_t data_off = e.local_header_offset + kLocalHeaderSize + r.u16(e.local_header_offset + 26) +
                            r.u16(e.local_header_offset + 28);
  r.need(data_off, e.compressed_size, "entry data");
  const uint8_t* in = data_.data() + data_off;

  // Every size check comes before the allocation: a stored entry holds
  // exactly its compressed bytes; deflate cannot expand more than ~1032:1, so
  // a larger claimed size is a corrupt directory (or a zip bomb).
  if (e.method == kMethodStored && e.compressed_size != e.uncompressed_size)
    fail(src, "corrupt zip archive: stored entry has compressed size " + std::to_string(e.compressed_size) +
                  " but uncompressed size " + std::to_string(e.uncompressed_size));
  if (e.method == kMethodDeflate && e.uncompressed_size > e.compressed_size * 1032 + 1024)
    fail(src, "corrupt zip archive: claimed uncompressed size " + std::to_string(e.uncompressed_size) +
                  " is impossible for " + std::to_string(e.compressed_size) + " compressed bytes");
  check_declared_size(e.uncompressed_size, std::numeric_limits<uint64_t>::max(), src);
  Bytes out(static_cast<std::size_t>(e.uncompressed_size));
  if (e.method == kMethodStored) {
    std::copy(in, in + out.size(), out.begin());
  } else {
    // Raw deflate (negative window bits: zip entries have no zlib header).
    z_stream zs{};
    if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) fail(src, "zlib inflateInit2 failed");
    // avail_in/avail_out are 32-bit, so feed members over 4 GiB in pieces.
    constexpr uint64_t kMaxChunk = std::numeric_limits<uInt>::max();
    uint64_t in_left = e.compressed_size, out_left = out.size();
    // zlib rejects a null next_out, which an empty vector's data() may be.
    Bytef empty_sink = 0;
    zs.next_in = const_cast<Bytef*>(in);
    zs.next_out = out.empty() ? &empty_sink : out.data();
    int ret = Z_OK;
    for (;;) {
      if (zs.avail_in == 0) {
        zs.avail_in = static_cast<uInt>(std::min(in_left, kMaxChunk));
        in_left -= zs.avail_in;
      }
      if (zs.avail_out == 0) {
        zs.avail_out = static_cast<uInt>(std::min(out_left, kMaxChunk));
        out_left -= zs.avail_out;
      }
      ret = inflate(&zs, Z_NO_FLUSH);
      if (ret == Z_STREAM_END) break;
      if (ret == Z_OK) continue;
      // Z_BUF_ERROR: no progress possible, i.e. the input ran out (truncated)
      // or the output is full while the stream goes on (sizes disagree).
      const std::string why = ret == Z_BUF_ERROR
                                  ? (zs.avail_in == 0 && in_left == 0 ? "compressed data is truncated"
                                                                      : "data is longer than the directory says")
                                  : std::string("corrupt deflate data (zlib: ") + (zs.msg ? zs.msg : "error") + ")";
      inflateEnd(&zs);
      fail(src, why);
    }
    const uint64_t produced = out.size() - out_left - zs.avail_out;
    inflateEnd(&zs);
    if (produced != out.size())
      fail(src, "corrupt zip archive: inflated to " + std::to_string(produced) + " bytes but the directory says " +
                    std::to_string(out.size()));
  }

  const uLong crc = crc32_z(crc32_z(0L, Z_NULL, 0), out.data(), out.size());
  if (crc != e.crc32) fail(src, "CRC-32 mismatch: the entry is corrupt");
  return out;
}

}  // namespace kiln::io

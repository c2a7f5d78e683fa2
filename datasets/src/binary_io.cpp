#include "binary_io.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <algorithm>
#include <fstream>
#include <limits>

#include "kiln/core/error.h"
#include "kiln/core/limits.h"

namespace kiln::datasets::detail {

namespace fs = std::filesystem;

void fail(const std::string& source, const std::string& what) { throw IOError(source + ": " + what); }

namespace {

// Checked before opening so the message says *why* (fopen/gzopen only give
// errno, and gzopen does not promise to set it).
void require_regular_file(const std::string& path) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (!fs::exists(st)) fail(path, "no such file");
  if (fs::is_directory(st)) fail(path, "is a directory, expected a file");
}

Bytes read_plain(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, std::string("cannot open: ") + std::strerror(errno));
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  in.seekg(0, std::ios::beg);
  if (size < 0) fail(path, "cannot determine the file size");
  Bytes out(static_cast<std::size_t>(size));
  in.read(reinterpret_cast<char*>(out.data()), size);
  if (in.gcount() != size) fail(path, "read error after " + std::to_string(in.gcount()) + " bytes");
  return out;
}

// gzerror() prefixes its message with the path; ours already starts with it.
std::string zlib_message(gzFile f, const std::string& path, int* errnum) {
  std::string msg = gzerror(f, errnum);
  if (msg.starts_with(path + ": ")) msg.erase(0, path.size() + 2);
  return msg;
}

Bytes read_gzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) fail(path, std::string("cannot open: ") + (errno ? std::strerror(errno) : "out of memory"));
  // A larger buffer than zlib's 8 KiB default: Fashion-MNIST's 26 MB file
  // reads in fewer system calls. Must precede the first read.
  gzbuffer(f, 1u << 17);

  // Deflate expands at most about 1032:1, so a gzip file cannot honestly
  // inflate past that (nor past the ceiling); stop before allocating more.
  std::error_code ec;
  const uint64_t file_size = fs::file_size(path, ec);
  const uint64_t limit = std::min<uint64_t>(static_cast<uint64_t>(max_read_bytes()),
                                            ec ? 0 : file_size * 1032 + (uint64_t{1} << 20));
  Bytes out;
  constexpr unsigned kChunk = 1u << 20;
  for (;;) {
    const std::size_t old = out.size();
    if (old > limit) {
      gzclose(f);
      if (limit == static_cast<uint64_t>(max_read_bytes()))
        fail(path, "inflates to more than the limit of " + std::to_string(limit) +
                       " bytes (set KILN_MAX_ALLOC_BYTES or kiln::set_max_read_bytes to allow it)");
      fail(path, "inflates to more than " + std::to_string(limit) + " bytes, impossible for its " +
                     std::to_string(file_size) + " compressed bytes (corrupt or hostile file)");
    }
    out.resize(old + kChunk);
    const int n = gzread(f, out.data() + old, kChunk);
    if (n < 0) {
      int errnum = Z_OK;
      const std::string msg = zlib_message(f, path, &errnum);
      gzclose(f);
      fail(path, "corrupt gzip stream (zlib: " + msg + ")");
    }
    out.resize(old + static_cast<std::size_t>(n));
    if (n == 0) break;
  }
  // A truncated stream is not an error for gzread: it returns what it could
  // inflate, then 0, and leaves Z_BUF_ERROR behind. Check it explicitly, or a
  // cut-off download would look like a short but valid file.
  int errnum = Z_OK;
  const std::string msg = zlib_message(f, path, &errnum);
  const int rc = gzclose(f);
  if (errnum != Z_OK) fail(path, "truncated or corrupt gzip stream (zlib: " + msg + ")");
  if (rc != Z_OK) fail(path, "truncated or corrupt gzip stream (zlib error " + std::to_string(rc) + ")");
  return out;
}

}  // namespace

Bytes read_file(const std::string& path, bool gunzip) {
  require_regular_file(path);
  return gunzip ? read_gzip(path) : read_plain(path);
}

std::string dims_string(const std::vector<int64_t>& dims) {
  std::string s = "(";
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(dims[i]);
  }
  if (dims.size() == 1) s += ",";
  return s + ")";
}

std::size_t checked_count(const std::vector<int64_t>& dims, std::size_t elem_size,
                          const std::string& source) {
  constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();
  std::size_t count = 1;
  for (int64_t d : dims) {
    if (d < 0) fail(source, "negative dimension in shape " + dims_string(dims));
    const auto ud = static_cast<std::size_t>(d);
    if (ud != 0 && count > kMax / ud) fail(source, "shape " + dims_string(dims) + " is too large");
    count *= ud;
  }
  if (elem_size != 0 && count > kMax / elem_size) fail(source, "shape " + dims_string(dims) + " is too large");
  return count;
}

}  // namespace kiln::datasets::detail

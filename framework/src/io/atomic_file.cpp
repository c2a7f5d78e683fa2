#include "io/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "kiln/core/error.h"

namespace kiln::io {

namespace fs = std::filesystem;

namespace {

void fsync_path(const std::string& p, bool directory) {
  int fd = ::open(p.c_str(), directory ? (O_RDONLY | O_DIRECTORY) : O_RDONLY);
  if (fd < 0) {
    if (directory) return;  // some file systems refuse to open folders; the rename is still atomic
    throw IOError(p + ": cannot reopen the temporary file to sync it: " + std::strerror(errno));
  }
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0 && !directory) throw IOError(p + ": fsync failed: " + std::strerror(err));
}

std::string temp_name(const fs::path& target) {
  static std::atomic<uint64_t> counter{0};
  return "." + target.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" +
         std::to_string(counter.fetch_add(1));
}

}  // namespace

void atomic_write(const std::string& path, const std::function<void(const std::string&)>& write) {
  const fs::path target(path);
  if (target.filename().empty()) throw IOError(path + ": expected a file name, got a folder path");
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw IOError(path + ": cannot save: the folder '" + dir.string() + "' does not exist");
  if (fs::is_directory(target, ec)) throw IOError(path + ": cannot save: a folder with that name exists");
  const std::string tmp = (dir / temp_name(target)).string();
  try {
    write(tmp);
    fsync_path(tmp, false);
  } catch (...) {
    fs::remove(tmp, ec);
    throw;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    fs::remove(tmp, ec);
    throw IOError(path + ": cannot replace the file: " + std::strerror(err));
  }
  fsync_path(dir.string(), true);
}

void atomic_write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  atomic_write(path, [&](const std::string& tmp) {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw IOError(tmp + ": cannot create the file: " + std::strerror(errno));
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) throw IOError(tmp + ": write failed (disk full?)");
  });
}

std::vector<uint8_t> read_file_bytes(const std::string& path) {
  std::error_code ec;
  const auto st = fs::status(path, ec);
  if (!fs::exists(st)) throw IOError(path + ": no such file");
  if (fs::is_directory(st)) throw IOError(path + ": is a directory, expected a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IOError(path + ": cannot open: " + std::strerror(errno));
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  in.seekg(0, std::ios::beg);
  if (size < 0) throw IOError(path + ": cannot determine the file size");
  std::vector<uint8_t> out(static_cast<std::size_t>(size));
  in.read(reinterpret_cast<char*>(out.data()), size);
  if (in.gcount() != size) throw IOError(path + ": read error");
  return out;
}

std::vector<uint8_t> read_file_head(const std::string& path, std::size_t n) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::vector<uint8_t> out(n);
  in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(n));
  out.resize(static_cast<std::size_t>(in.gcount()));
  return out;
}

}  // namespace kiln::io

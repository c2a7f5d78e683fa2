#include "io/atomic_file.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>

#include "kiln/core/error.h"
#include "kiln/core/limits.h"

namespace kiln::io {

namespace fs = std::filesystem;

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

namespace {

std::string temp_prefix(const fs::path& target) { return "." + target.filename().string() + ".tmp-"; }

std::string temp_name(const fs::path& target) {
  static std::atomic<uint64_t> counter{0};
  return temp_prefix(target) + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1));
}

// This process's temporary files being written now (full paths), so that a
// stale file left by an earlier process with the same pid is told apart from
// a save in progress on another thread.
struct InFlight {
  std::mutex mu;
  std::set<std::string> paths;
};
InFlight& in_flight() {
  static InFlight f;
  return f;
}

/// The pid in "<prefix><pid>-<n>", or -1 if `name` is not such a temporary file name.
long temp_file_pid(const std::string& name, const std::string& prefix) {
  if (name.compare(0, prefix.size(), prefix) != 0) return -1;
  const std::string rest = name.substr(prefix.size());
  const auto dash = rest.find('-');
  if (dash == 0 || dash == std::string::npos || dash + 1 == rest.size() || dash > 9) return -1;
  for (std::size_t i = 0; i < rest.size(); ++i)
    if (i != dash && (rest[i] < '0' || rest[i] > '9')) return -1;
  return std::stol(rest.substr(0, dash));
}

bool is_stale(const std::string& path, long pid) {
  if (pid == static_cast<long>(::getpid())) {
    std::lock_guard<std::mutex> l(in_flight().mu);
    return in_flight().paths.count(path) == 0;
  }
  // ESRCH: no such process. A live process (or one we may not signal, EPERM)
  // might still be writing the file, so it is left alone.
  return pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

}  // namespace

TempPath::TempPath(const std::string& target) {
  const fs::path t(target);
  const fs::path dir = t.has_parent_path() ? t.parent_path() : fs::path(".");
  path_ = (dir / temp_name(t)).string();
  std::lock_guard<std::mutex> l(in_flight().mu);
  in_flight().paths.insert(path_);
}

TempPath::~TempPath() {
  std::lock_guard<std::mutex> l(in_flight().mu);
  in_flight().paths.erase(path_);
}

void remove_stale_temp_files(const std::string& path) {
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  const std::string prefix = temp_prefix(target);
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const long pid = temp_file_pid(name, prefix);
    std::error_code rm;
    // remove_all: a SavedModel's temporary is a whole folder.
    if (pid >= 0 && is_stale(it->path().string(), pid)) fs::remove_all(it->path(), rm);
  }
}

void atomic_write(const std::string& path, const std::function<void(const std::string&)>& write) {
  const fs::path target(path);
  if (target.filename().empty()) throw IOError(path + ": expected a file name, got a folder path");
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw IOError(path + ": cannot save: the folder '" + dir.string() + "' does not exist");
  if (fs::is_directory(target, ec)) throw IOError(path + ": cannot save: a folder with that name exists");
  // Said up front and about the target: otherwise the first error would name the temporary file.
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw IOError(path + ": cannot save: the folder '" + dir.string() + "' is not writable: " + std::strerror(errno));
  // A process killed mid-save leaves its temporary file (a whole copy) behind.
  remove_stale_temp_files(path);
  const TempPath guard(path);
  const std::string& tmp = guard.path();
  try {
    write(tmp);
    fsync_path(tmp, false);
  } catch (const IOError& e) {
    fs::remove(tmp, ec);
    throw IOError(path + ": cannot save: " + e.what());
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
  check_declared_size(static_cast<uint64_t>(size), static_cast<uint64_t>(size), path);
  std::vector<uint8_t> out(static_cast<std::size_t>(size));
  in.read(reinterpret_cast<char*>(out.data()), size);
  if (in.gcount() != size) throw IOError(path + ": read error after " + std::to_string(in.gcount()) + " bytes");
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

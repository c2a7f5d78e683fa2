#include "io/atomic_dir.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "io/atomic_file.h"
#include "kiln/core/error.h"

namespace kiln::io {

namespace fs = std::filesystem;

namespace {

std::function<void(const std::string&)>& step_hook() {
  static std::function<void(const std::string&)> hook;
  return hook;
}

bool& exchange_disabled() {
  static bool disabled = false;
  return disabled;
}

void commit_step(const std::string& what) {
  if (step_hook()) step_hook()(what);
}

// Why an exchange rather than a folder of versions named by one "current"
// file: the SavedModel keeps its plain layout (saved_model.json at the top,
// readable by any tool), and loading needs no indirection. Linux has had
// RENAME_EXCHANGE since 3.15; the raw syscall is used because not every libc
// declares renameat2.
int exchange_paths(const std::string& a, const std::string& b) {
  if (exchange_disabled()) {
    errno = EINVAL;  // what a file system without RENAME_EXCHANGE answers
    return -1;
  }
#ifdef SYS_renameat2
  constexpr unsigned kExchange = 2;  // RENAME_EXCHANGE, <linux/fs.h>
  return static_cast<int>(::syscall(SYS_renameat2, AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), kExchange));
#else
  errno = ENOSYS;
  return -1;
#endif
}

/// Syncs every file and folder under `root`, deepest first, then `root`.
void fsync_tree(const fs::path& root) {
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    commit_step("fsync " + e.path().string());
    fsync_path(e.path().string(), e.is_directory());
  }
  commit_step("fsync " + root.string());
  fsync_path(root.string(), true);
}

/// Removes `root` file by file, so a test can stop the process between unlinks.
void remove_tree(const fs::path& root) {
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory() && !it->is_symlink()) {
      remove_tree(it->path());
      continue;
    }
    commit_step("unlink " + it->path().string());
    fs::remove(it->path(), ec);
  }
  commit_step("rmdir " + root.string());
  fs::remove(root, ec);
}

/// The pid in "<prefix><pid>" (what saves before the atomic swap left:
/// "<name>.tmp-<pid>" and "<name>.old-<pid>"), or -1.
long legacy_pid(const std::string& name, const std::string& prefix) {
  if (name.size() <= prefix.size() || name.size() > prefix.size() + 9 || name.compare(0, prefix.size(), prefix) != 0)
    return -1;
  for (std::size_t i = prefix.size(); i < name.size(); ++i)
    if (name[i] < '0' || name[i] > '9') return -1;
  return std::stol(name.substr(prefix.size()));
}

void remove_legacy_leftovers(const fs::path& target) {
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  const std::string name = target.filename().string();
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string n = it->path().filename().string();
    long pid = legacy_pid(n, name + ".tmp-");
    if (pid < 0) pid = legacy_pid(n, name + ".old-");
    std::error_code rm;
    if (pid > 0 && pid != ::getpid() && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
      fs::remove_all(it->path(), rm);
  }
}

void check_replaceable(const fs::path& target, const std::string& marker) {
  std::error_code ec;
  const auto st = fs::symlink_status(target, ec);
  if (!fs::exists(st)) return;
  if (fs::is_symlink(st))
    throw IOError(target.string() + ": cannot save: it is a symbolic link; give the folder's own path");
  if (!fs::is_directory(st))
    throw IOError(target.string() + ": cannot save: it exists and is not a folder (a SavedModel is a folder)");
  if (!fs::is_empty(target, ec) && !fs::exists(fs::symlink_status(target / marker, ec)))
    throw IOError(target.string() + ": cannot save: the folder exists, is not empty and has no " + marker +
                  ", so it was not saved here; remove it or choose another path");
}

}  // namespace

void testing::set_commit_step_hook(std::function<void(const std::string&)> hook) { step_hook() = std::move(hook); }

void testing::set_exchange_unsupported(bool unsupported) { exchange_disabled() = unsupported; }

void atomic_write_dir(const std::string& path, const std::string& marker_file,
                      const std::function<void(const std::string&)>& write) {
  fs::path target = fs::path(path).lexically_normal();
  if (target.filename().empty() && target.has_parent_path()) target = target.parent_path();  // "dir/"
  if (target.filename().empty() || target.filename() == "." || target.filename() == "..")
    throw IOError(path + ": expected a folder name");
  const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(parent, ec))
    throw IOError(path + ": cannot save: the folder '" + parent.string() + "' does not exist");
  check_replaceable(target, marker_file);
  const TempPath tmp(target.string());
  try {
    fs::create_directory(tmp.path());
    write(tmp.path());
    fsync_tree(tmp.path());
  } catch (...) {
    fs::remove_all(tmp.path(), ec);
    throw;
  }
  const bool existed = fs::exists(fs::symlink_status(target, ec));
  commit_step(existed ? "exchange" : "rename");
  int rc = existed ? exchange_paths(tmp.path(), target.string()) : ::rename(tmp.path().c_str(), target.c_str());
  int err = errno;
  if (rc != 0 && existed && (err == EINVAL || err == ENOSYS)) {
    // A file system without RENAME_EXCHANGE: two renames, not atomic. A kill
    // between them leaves the old version under the temporary name only.
    const TempPath aside(target.string());
    commit_step("rename aside");
    rc = ::rename(target.c_str(), aside.path().c_str());
    err = errno;
    if (rc == 0) {
      commit_step("rename");
      rc = ::rename(tmp.path().c_str(), target.c_str());
      err = errno;
      if (rc != 0) ::rename(aside.path().c_str(), target.c_str());
    }
    if (rc == 0) ::rename(aside.path().c_str(), tmp.path().c_str());
  }
  if (rc != 0) {
    fs::remove_all(tmp.path(), ec);
    throw IOError(path + ": cannot replace the folder: " + std::strerror(err));
  }
  commit_step("fsync " + parent.string());
  fsync_path(parent.string(), true);
  if (existed) {  // the temporary name now holds the old version
    remove_tree(tmp.path());
    commit_step("fsync " + parent.string());
    fsync_path(parent.string(), true);
  }
  // Leftovers of killed saves go only once this one is in: where renames
  // could not exchange (here without RENAME_EXCHANGE, or in the scheme before
  // it), a kill between two renames leaves the last save under such a name.
  remove_stale_temp_files(target.string());
  remove_legacy_leftovers(target);
}

}  // namespace kiln::io

#include "io/onnx/saved_model_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "io/sha256.h"
#include "kiln/core/error.h"
#include "kiln/core/limits.h"

namespace kiln::saved_model {

namespace fs = std::filesystem;

namespace {

/// Refuses a path that leaves the folder or passes a symbolic link: the path
/// checks alone are lexical, and a link would be followed to any file.
void check_inside(const fs::path& root, const fs::path& rel, const std::string& shown) {
  bool inside = rel.is_relative() && !rel.empty();
  for (const auto& part : rel) inside = inside && part != ".." && part != ".";
  if (!inside)
    throw IOError("saved_model::load: '" + (root / "saved_model.json").string() + "' names a file outside the folder: '" +
                  rel.string() + "'");
  fs::path at = root;
  for (const auto& part : rel) {
    at /= part;
    struct stat st{};
    if (::lstat(at.c_str(), &st) != 0) throw IOError(shown + ": no such file");
    if (S_ISLNK(st.st_mode))
      throw IOError("saved_model::load: '" + at.string() +
                    "' is a symbolic link; a SavedModel's files must be inside its folder, so links are refused");
  }
}

std::string read_no_follow(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) throw IOError(path + ": cannot open: " + std::strerror(errno));
  struct stat st{};
  std::string bytes;
  try {
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) throw IOError(path + ": is not a regular file");
    check_declared_size(static_cast<uint64_t>(st.st_size), static_cast<uint64_t>(st.st_size), path);
    bytes.resize(static_cast<std::size_t>(st.st_size));
    std::size_t got = 0;
    while (got < bytes.size()) {
      const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw IOError(path + ": read error after " + std::to_string(got) + " bytes");
      got += static_cast<std::size_t>(n);
    }
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  return bytes;
}

}  // namespace

std::string SavedFiles::read(const std::string& rel) const {
  const std::string shown = path(rel);
  check_inside(root_, fs::path(rel), shown);
  std::string bytes = read_no_follow(shown);
  if (!checked_) return bytes;
  const auto sum = sums_.find(fs::path(rel).lexically_normal().generic_string());
  if (sum == sums_.end())
    throw IOError("saved_model::load: '" + shown + "' has no checksum in '" + path("saved_model.json") +
                  "' (the index was edited or is damaged)");
  if (io::sha256_hex(bytes) != sum->second)
    throw IOError("saved_model::load: '" + shown + "' does not match the SHA-256 recorded in '" +
                  path("saved_model.json") + "': the file was changed or damaged after it was saved");
  return bytes;
}

}  // namespace kiln::saved_model

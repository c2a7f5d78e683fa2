// keras's dataset_utils.index_directory / index_subdirectory / iter_valid_files and
// get_training_or_validation_split, with os.walk's order and Keras's messages.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>
#include <set>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/utils/sequence.h"
#include "utils/directory_index.h"

namespace kiln::utils::directory_index {
namespace fs = std::filesystem;
namespace {

// os.path.join for two parts.
std::string path_join(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  return a.back() == '/' ? a + b : a + "/" + b;
}


bool has_format(const std::string& name, const std::vector<std::string>& formats) {
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  for (const auto& f : formats)
    if (lower.size() >= f.size() && lower.compare(lower.size() - f.size(), f.size(), f) == 0) return true;
  return false;
}

// os.walk(top): (root, sorted file names) for every directory, roots sorted as strings.
// Symbolic links to directories are listed as directories and entered only with
// follow_links; a directory already entered (a link cycle) is not entered again.
void walk(const std::string& root, bool follow_links, std::set<fs::path>& seen,
          std::vector<std::pair<std::string, std::vector<std::string>>>& out) {
  std::error_code ec;
  const fs::path canonical = fs::canonical(root, ec);
  if (ec || !seen.insert(canonical).second) return;
  fs::directory_iterator it(root, ec), end;
  if (ec) return;  // os.walk skips directories it cannot list
  std::vector<std::string> files, dirs;
  for (; it != end; it.increment(ec)) {
    if (ec) break;
    const std::string name = it->path().filename().string();
    std::error_code dir_ec;
    if (it->is_directory(dir_ec)) {
      if (follow_links || !it->is_symlink(dir_ec)) dirs.push_back(name);
    } else {
      files.push_back(name);
    }
  }
  std::sort(files.begin(), files.end());
  out.emplace_back(root, std::move(files));
  for (const auto& d : dirs) walk(path_join(root, d), follow_links, seen, out);
}

// index_subdirectory: the relative paths (class directory name first) of the valid files.
std::vector<std::string> index_subdirectory(const std::string& main, const std::string& subdir, bool follow_links,
                                            const std::vector<std::string>& formats) {
  const std::string top = path_join(main, subdir);
  std::set<fs::path> seen;
  std::vector<std::pair<std::string, std::vector<std::string>>> roots;
  walk(top, follow_links, seen, roots);
  std::sort(roots.begin(), roots.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (const auto& [root, files] : roots) {
    // root is top + "/" + a relative part (or top itself); the relative path drops top.
    const std::string rel_dir = root.size() > top.size() ? root.substr(top.size() + (top.back() == '/' ? 0 : 1)) : "";
    for (const auto& f : files)
      if (has_format(f, formats)) out.push_back(path_join(subdir, path_join(rel_dir, f)));
  }
  return out;
}

std::vector<std::string> class_subdirectories(const std::string& directory) {
  std::error_code ec;
  std::vector<std::string> subdirs;
  fs::directory_iterator it(directory, ec), end;
  if (ec) throw IOError("image_dataset_from_directory: cannot list the directory '" + directory + "': " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) throw IOError("image_dataset_from_directory: cannot list the directory '" + directory + "': " + ec.message());
    const std::string name = it->path().filename().string();
    std::error_code dir_ec;
    if (it->is_directory(dir_ec) && name[0] != '.') subdirs.push_back(name);
  }
  std::sort(subdirs.begin(), subdirs.end());
  return subdirs;
}

}  // namespace

std::string python_list(const std::vector<std::string>& names) {
  std::string s = "[";
  for (std::size_t i = 0; i < names.size(); ++i) s += (i ? ", '" : "'") + names[i] + "'";
  return s + "]";
}

Index index_directory(const std::string& directory, const std::vector<std::string>& formats, const IndexOptions& o) {
  std::vector<std::string> subdirs{""};
  if (o.labels == "inferred") {
    subdirs = class_subdirectories(directory);
    if (o.class_names) {
      const std::set<std::string> have(subdirs.begin(), subdirs.end());
      for (const auto& c : *o.class_names)
        if (!have.count(c))
          throw ValueError("The `class_names` passed did not match the names of the subdirectories of the target "
                           "directory. Expected: " + python_list(subdirs) + " (or a subset of it), but received: "
                           "class_names=" + python_list(*o.class_names));
      subdirs = *o.class_names;
    }
  } else if (o.class_names) {
    throw ValueError(o.labels == "none" ? "When `labels=None` (no labels), argument `class_names` cannot be specified."
                                        : "When argument `labels` is specified, argument `class_names` cannot be "
                                          "specified (the `class_names` will be the sorted list of labels).");
  } else if (!std::filesystem::is_directory(directory)) {
    throw IOError("image_dataset_from_directory: cannot list the directory '" + directory + "': not a directory");
  }
  Index index;
  std::vector<std::string> names;
  for (std::size_t c = 0; c < subdirs.size(); ++c)
    for (auto& f : index_subdirectory(directory, subdirs[c], o.follow_links, formats)) {
      names.push_back(std::move(f));
      index.labels.push_back(static_cast<int64_t>(c));
    }
  index.has_labels = o.labels != "none";
  if (o.labels == "inferred") {
    index.class_names = subdirs;
  } else if (o.labels == "none") {
    index.labels.clear();
  } else {
    if (o.label_list.size() != names.size())
      throw ValueError("Expected the lengths of `labels` to match the number of files in the target directory. "
                       "len(labels) is " + std::to_string(o.label_list.size()) + " while we found " +
                       std::to_string(names.size()) + " files in directory " + directory + ".");
    index.labels = o.label_list;
    for (int64_t l : std::set<int64_t>(o.label_list.begin(), o.label_list.end())) index.class_names.push_back(std::to_string(l));
  }
  if (o.verbose) {
    if (!index.has_labels) std::cout << "Found " << names.size() << " files.\n";
    else std::cout << "Found " << names.size() << " files belonging to " << index.class_names.size() << " classes.\n";
  }
  for (const auto& n : names) index.file_paths.push_back(path_join(directory, n));
  if (o.shuffle) {
    // RandomState(seed).shuffle on the paths and, separately re-seeded, on the labels: one permutation.
    const auto order = numpy_legacy_permutation(static_cast<int64_t>(names.size()), o.seed);
    Index shuffled = index;
    for (std::size_t i = 0; i < order.size(); ++i) {
      shuffled.file_paths[i] = index.file_paths[static_cast<std::size_t>(order[i])];
      if (index.has_labels) shuffled.labels[i] = index.labels[static_cast<std::size_t>(order[i])];
    }
    return shuffled;
  }
  return index;
}

Index training_or_validation_split(const Index& index, std::optional<double> validation_split, const std::string& subset) {
  if (!validation_split || *validation_split == 0.0) return index;
  const auto n = static_cast<int64_t>(index.file_paths.size());
  const auto num_val = static_cast<int64_t>(*validation_split * static_cast<double>(n));
  // Python's samples[:-0] is empty and samples[-0:] is everything; Keras inherits both.
  int64_t begin = 0, end = n;
  if (subset == "training") {
    std::cout << "Using " << n - num_val << " files for training.\n";
    end = num_val == 0 ? 0 : n - num_val;
  } else if (subset == "validation") {
    std::cout << "Using " << num_val << " files for validation.\n";
    begin = num_val == 0 ? 0 : n - num_val;
  } else {
    throw ValueError("`subset` must be either \"training\" or \"validation\", received: " + subset);
  }
  Index out = index;
  out.file_paths.assign(index.file_paths.begin() + begin, index.file_paths.begin() + end);
  if (index.has_labels) out.labels.assign(index.labels.begin() + begin, index.labels.begin() + end);
  return out;
}

}  // namespace kiln::utils::directory_index

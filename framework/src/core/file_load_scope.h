#pragma once
// Private: while a model is built from a file's config (load_model,
// model_from_json), every tensor allocation on this thread and the sum of the
// weights the layers create must stay under max_read_bytes(), so a small
// config declaring Dense(10**6) on 10**6 inputs, or a huge build input shape,
// fails with a clear error instead of exhausting memory.
//
//   detail::FileLoadScope scope(path);   // in the loader, around from_config
//   detail::check_load_allocation(nbytes, "tensor of shape (...)");   // Tensor::empty
//   detail::charge_load_weight(shape.num_elements(), dtype_size(dt));   // add_weight
#include <cstddef>
#include <cstdint>
#include <string>

namespace kiln::detail {

class FileLoadScope {
 public:
  explicit FileLoadScope(std::string source);
  ~FileLoadScope();
  FileLoadScope(const FileLoadScope&) = delete;
  FileLoadScope& operator=(const FileLoadScope&) = delete;
  /// The innermost scope on this thread, or nullptr.
  static FileLoadScope* current();
  const std::string& source() const { return source_; }
  int64_t weight_bytes = 0;
  /// The loader fills every weight from the file next (load_model), so
  /// add_weight allocates zeros instead of running the initializers: drawing
  /// 25 million random numbers that are overwritten at once was a third of
  /// the time to load a ResNet50.
  bool weights_follow = false;

 private:
  FileLoadScope* prev_;
  std::string source_;
};

/// Throws ValueError when a scope is active and `nbytes` exceeds max_read_bytes().
void check_load_allocation(int64_t nbytes, const std::string& what);
/// Adds a weight of `elements` × `itemsize` bytes to the scope's weight total;
/// throws ValueError when that overflows or passes max_read_bytes().
void charge_load_weight(int64_t elements, std::size_t itemsize);

}  // namespace kiln::detail
